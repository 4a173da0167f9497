import { ApplicationFailure, sleep } from '@temporalio/workflow';
import { EventLog } from '../../../src/events/eventLog';
import { STREAMED_OPERATIONS, type StreamedOperation, type StreamedOperationName } from '../../../src/events/streams';

/**
 * Test only: a workflow that records a scripted list of events through EventLog, with timers
 * between them, so the relay can be tested before Research and Automate exist. Run by a worker
 * the test starts itself on its own task queue.
 */

export interface ScriptStep {
  event: string;
  /** A `timestamp` field, if present, is set to the time the workflow records the event. */
  data: Record<string, unknown>;
  /** Wait this long before recording it. */
  delayMs?: number;
}

export interface ScriptedEventsInput {
  operation: StreamedOperationName;
  steps: ScriptStep[];
  /** After the steps, fail with this error code of src/errors.ts. */
  failWith?: string;
  /** Accepted reads before the run takes no more (EventLog's own budget otherwise). */
  readBudget?: number;
}

export async function scriptedEvents(input: ScriptedEventsInput): Promise<number> {
  const log = new EventLog(
    STREAMED_OPERATIONS[input.operation] as StreamedOperation<Record<string, Record<string, unknown>>>,
    input.readBudget,
  );
  return log.run(async () => {
    for (const step of input.steps) {
      if (step.delayMs) await sleep(step.delayMs);
      log.emit(step.event, 'timestamp' in step.data ? { ...step.data, timestamp: Date.now() } : step.data);
    }
    if (input.failWith) throw ApplicationFailure.nonRetryable('scripted failure', input.failWith);
    return input.steps.length;
  });
}
