import type { ErrorCode } from '../errors';

/** A research step failed for the whole run: the error event says which, then the run fails. */
export class ResearchFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    detail: string,
  ) {
    super(detail);
  }
}
