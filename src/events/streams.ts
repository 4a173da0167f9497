import type { AutomateEvents } from './automate';
import type { ResearchEvents } from './research';

/** One event of a stream whose payloads are typed by `M` (event name -> payload). */
export type EventOf<M> = { [E in keyof M & string]: { event: E; data: M[E] } }[keyof M & string];

/** Why a stream ended early, as the caller may see it: never internals. */
export interface StreamFailure {
  /** A short machine-readable word, such as an error code of src/errors.ts or `cancelled`. */
  code: string;
  message: string;
}

/** An operation that answers with an event stream (spec §4 rule 3). */
export interface StreamedOperation<M> {
  name: string;
  /** The event a failure becomes on this operation's stream (spec §7: nothing follows it). */
  failureEvent(failure: StreamFailure, at: number): EventOf<M>;
}

export const researchStream = {
  name: 'research',
  failureEvent: (failure, at) => ({
    event: 'error',
    data: { message: failure.message, timestamp: at, error: { name: failure.code, message: failure.message } },
  }),
} satisfies StreamedOperation<ResearchEvents>;

export const automateStream = {
  name: 'automate',
  failureEvent: (failure, at) => ({
    event: 'error',
    data: {
      success: false,
      error: { code: failure.code.toUpperCase(), message: failure.message, timestamp: new Date(at).toISOString() },
      message: failure.message,
    },
  }),
} satisfies StreamedOperation<AutomateEvents>;

export const STREAMED_OPERATIONS = { research: researchStream, automate: automateStream } as const;
export type StreamedOperationName = keyof typeof STREAMED_OPERATIONS;

/** Any streamed operation, for code that handles every stream alike (the relay). */
export type AnyStreamedOperation = StreamedOperation<Record<string, unknown>>;

export function streamedOperation(name: StreamedOperationName): AnyStreamedOperation {
  return STREAMED_OPERATIONS[name] as AnyStreamedOperation;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The run id callers see (`x-run-id`, `GET /v1/runs/{runId}/events`): the operation and the
 * workflow id's ULID. The organization is left out: it comes from the caller's key, so a run id
 * presented with another organization's key names a workflow that does not exist.
 */
export function runIdOf(operation: StreamedOperationName, ulid: string): string {
  return `${operation}-${ulid}`;
}

export function parseRunId(runId: string): { operation: StreamedOperationName; ulid: string } | undefined {
  const dash = runId.lastIndexOf('-');
  const operation = runId.slice(0, dash);
  const ulid = runId.slice(dash + 1);
  if (!Object.prototype.hasOwnProperty.call(STREAMED_OPERATIONS, operation) || !ULID.test(ulid)) return undefined;
  return { operation: operation as StreamedOperationName, ulid };
}

/** The id format of every run: `<organization>/<operation>/<ulid>`, findable by either in the UI. */
export function workflowIdOf(organization: string, operation: string, ulid: string): string {
  return `${organization}/${operation}/${ulid}`;
}

/** The parts of a workflow id of that format; undefined for any other id. */
export function parseWorkflowId(
  workflowId: string,
): { organization: string; operation: string; ulid: string } | undefined {
  // From the right: an organization's name is the one part that might hold a slash.
  const ulidAt = workflowId.lastIndexOf('/');
  const operationAt = workflowId.lastIndexOf('/', ulidAt - 1);
  if (operationAt <= 0) return undefined;
  const parts = {
    organization: workflowId.slice(0, operationAt),
    operation: workflowId.slice(operationAt + 1, ulidAt),
    ulid: workflowId.slice(ulidAt + 1),
  };
  return parts.operation && ULID.test(parts.ulid) ? parts : undefined;
}

/** The organization a run belongs to, from its workflow id; undefined for an id of another shape. */
export function organizationOf(workflowId: string): string | undefined {
  return parseWorkflowId(workflowId)?.organization;
}
