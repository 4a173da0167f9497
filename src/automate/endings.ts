import type { AutomateErrorCode, AutomatePayloads, InIteration } from '../events/automate';
import { SESSIONS_BUSY_MESSAGE } from '../operations/automate';

/** How a task ended: the `complete` event's success and error. */
export interface Ending {
  success: boolean;
  finalAnswer: string | null;
  /** `shown` is what the caller reads when a fixed sentence of the workflow's says more than the code's. */
  error?: { code: AutomateErrorCode; message: string; shown?: string };
}

/**
 * What the caller reads in `complete.error.message`, by code: fixed text, as research's `error`
 * event has. The ending's own message can hold internals (a model client's or a browser worker's
 * words); it goes to the log and, for a failing code, to the run's failure in its history.
 */
const ENDING_MESSAGES: Record<AutomateErrorCode, string> = {
  TASK_ABORTED: 'the agent gave the task up; its reason is the final answer',
  MAX_ITERATIONS: 'the task was not done within maxIterations steps',
  MAX_ERRORS: 'too many steps failed in a row',
  TASK_FAILED: 'the task failed',
};

/** An ending that fails the run too (for operators: a failed run can be found, replayed, retried). */
const FAILING_CODES: ReadonlySet<AutomateErrorCode> = new Set(['MAX_ERRORS', 'TASK_FAILED']);

/** Ends the task from wherever the agent is, with this ending. */
export class TaskEnded extends Error {
  constructor(readonly ending: Ending) {
    super(ending.error?.message ?? 'task ended');
  }
}

export const endings = {
  accepted: (answer: string): Ending => ({ success: true, finalAnswer: answer }),
  aborted: (reason: string): Ending => ({
    success: false,
    finalAnswer: reason,
    error: { code: 'TASK_ABORTED', message: reason },
  }),
  outOfIterations: (maxIterations: number): Ending => ({
    success: false,
    finalAnswer: null,
    error: { code: 'MAX_ITERATIONS', message: `the task was not done within ${maxIterations} iterations` },
  }),
  tooManyErrors: (inRow: number, last: string): Ending => ({
    success: false,
    finalAnswer: null,
    error: { code: 'MAX_ERRORS', message: `${inRow} steps failed in a row; the last: ${last}` },
  }),
  notValidated: (answer: string, attempts: number): Ending => ({
    success: false,
    finalAnswer: answer,
    error: { code: 'TASK_FAILED', message: `the answer did not pass validation in ${attempts} attempt(s)` },
  }),
  sessionsBusy: (): Ending => ({
    success: false,
    finalAnswer: null,
    error: { code: 'TASK_FAILED', message: SESSIONS_BUSY_MESSAGE, shown: SESSIONS_BUSY_MESSAGE },
  }),
  failed: (message: string): Ending => ({ success: false, finalAnswer: null, error: { code: 'TASK_FAILED', message } }),
};

export function failsRun(ending: Ending): ending is Ending & { error: NonNullable<Ending['error']> } {
  return !!ending.error && FAILING_CODES.has(ending.error.code);
}

/** What the caller reads of an ending's error: never the ending's own message (see ENDING_MESSAGES). */
function shownError(error: NonNullable<Ending['error']>): { code: AutomateErrorCode; message: string } {
  return { code: error.code, message: error.shown ?? ENDING_MESSAGES[error.code] };
}

/**
 * The final answer `task:completed` and `complete` carry. Clients print it as the run's result
 * (the Go CLI boxes it) and most show nothing of `complete.error`, so a task that failed with
 * no answer of the agent's has the reason there, in the words of `complete.error`.
 */
export function finalAnswerOf(ending: Ending): string | null {
  return ending.finalAnswer ?? (ending.error ? shownError(ending.error).message : null);
}

/** `task:completed`: the final answer, and how the task ended in a line a timeline shows. */
export function completedData(ending: Ending): Omit<AutomatePayloads['task:completed'], keyof InIteration> {
  return {
    finalAnswer: finalAnswerOf(ending),
    success: ending.success,
    message: ending.error ? `Task failed: ${shownError(ending.error).message}` : 'Task completed',
  };
}

/** The `complete` event of a task that ended so, with the run's figures. */
export function completeEvent(
  ending: Ending,
  stats: AutomatePayloads['complete']['stats'],
): AutomatePayloads['complete'] {
  return {
    success: ending.success,
    finalAnswer: finalAnswerOf(ending),
    stats,
    ...(ending.error ? { error: shownError(ending.error) } : {}),
  };
}
