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
  /** Set where the route says when its request is counted against the organization's limit (rateLimit.ts). */
  requestCount?: RequestCount;
  /** Why a request failed, for the log only. */
  errorDetail?: string;
}

/** A request's count against its organization's requests per minute, taken once: 429 past them. */
export interface RequestCount {
  /** Counts the request, before any work it starts. */
  take(): Promise<void>;
  /** Counts the request of a cache hit and charges the hit (402), in one statement where the store holds the counts. */
  takeWithCacheHit(): Promise<void>;
}

type Identity = Partial<Pick<ApiState, 'organization' | 'workflowId' | 'runId'>>;

/** Records who is asking or which run is concerned, on the state and on every later line of the request's log. */
export function identify(state: ApiState, identity: Identity): void {
  const known = Object.fromEntries(Object.entries(identity).filter(([, value]) => value !== undefined)) as Identity;
  Object.assign(state, known);
  state.log = state.log.child(known);
}
