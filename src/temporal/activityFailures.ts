import { ApplicationFailure } from '@temporalio/common';
import { MODEL_FAILED, MODEL_TRANSIENT, ServiceError } from '../errors';
import { ModelError } from '../model/modelError';
import { TRANSIENT_STATUSES } from '../net/transientStatuses';

/** A failed fetch or render is worth another attempt when no answer came or the answer was transient. */
export function transientFetchFailure(err: ServiceError, httpStatus: number): boolean {
  return err.code === 'fetch_failed' && (httpStatus === 0 || TRANSIENT_STATUSES.has(httpStatus));
}

/**
 * Turns what an activity threw into the failure Temporal records. A ServiceError keeps its
 * code as the failure type, which is how the API later finds the spec's status and message;
 * anything else is an unexpected fault and stays retryable.
 */
export async function reportingFailures<T>(
  work: () => Promise<T>,
  retryable: (err: ServiceError) => boolean,
): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ServiceError) {
      throw ApplicationFailure.create({
        type: err.code,
        message: err.detail ?? err.message,
        nonRetryable: !retryable(err),
        details: err.httpStatus ? [{ httpStatus: err.httpStatus }] : undefined,
      });
    }
    throw err;
  }
}

/** A model call's failure as Temporal records it: transient ones retry (after Retry-After), the rest stop at once. */
export function modelFailure(err: unknown): unknown {
  if (!(err instanceof ModelError)) return err;
  if (!err.retryable) return ApplicationFailure.nonRetryable(err.message, MODEL_FAILED);
  return ApplicationFailure.create({
    type: MODEL_TRANSIENT,
    message: err.message,
    nextRetryDelay: err.retryAfterMs === undefined ? undefined : `${err.retryAfterMs}ms`,
  });
}
