import type { Logger } from '../telemetry/logger';

/** What middleware learns about a request, for handlers and the request log. */
export interface ApiState {
  requestId: string;
  /** The request's logger: every line names the request, and its organization and run once known. */
  log: Logger;
  organization?: string;
  workflowId?: string;
  /** Temporal's run id of the workflow the request started or reads. */
  runId?: string;
  body?: Record<string, unknown>;
  /** Why a request failed, for the log only. */
  errorDetail?: string;
}

type Identity = Partial<Pick<ApiState, 'organization' | 'workflowId' | 'runId'>>;

/** Records who is asking or which run is concerned, on the state and on every later line of the request's log. */
export function identify(state: ApiState, identity: Identity): void {
  const known = Object.fromEntries(Object.entries(identity).filter(([, value]) => value !== undefined)) as Identity;
  Object.assign(state, known);
  state.log = state.log.child(known);
}
