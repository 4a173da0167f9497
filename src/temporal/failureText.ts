import { ActivityFailure } from '@temporalio/common';

/** What a failure says, for the log: an activity's own message rather than Temporal's wrapper. */
export function failureText(err: unknown): string {
  return err instanceof ActivityFailure && err.cause
    ? err.cause.message
    : err instanceof Error
      ? err.message
      : String(err);
}
