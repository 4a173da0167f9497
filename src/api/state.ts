import type { Logger } from '../logger';

/** What middleware learns about a request, for handlers and the request log. */
export interface ApiState {
  requestId: string;
  log: Logger;
  organization?: string;
  workflowId?: string;
  body?: Record<string, unknown>;
  /** Why a request failed, for the log only. */
  errorDetail?: string;
}
