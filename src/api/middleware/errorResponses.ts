import { ApplicationFailure, TemporalFailure } from '@temporalio/common';
import { WorkflowFailedError } from '@temporalio/client';
import type { Middleware } from 'koa';
import { isErrorCode, RateLimitedError, RETRYABLE, ServiceError } from '../../errors';
import { UNAVAILABLE_RETRY_AFTER_S } from '../../config/timeouts';
import { isConnectionFailure } from '../throughOutages';
import type { ApiState } from '../state';

/**
 * The one place where failures become HTTP answers (spec §7). A workflow's failure
 * carries the code its activity raised; anything without a known code is a 500 whose details
 * go to the log, never to the caller.
 */
export function toServiceError(err: unknown): ServiceError {
  if (err instanceof ServiceError) return err;
  if (err instanceof WorkflowFailedError) {
    for (let cause: unknown = err.cause; cause instanceof TemporalFailure; cause = cause.cause) {
      if (cause instanceof ApplicationFailure && isErrorCode(cause.type))
        return new ServiceError(cause.type, cause.message);
    }
    return new ServiceError('internal', describeFailure(err));
  }
  if (isConnectionFailure(err))
    return new ServiceError('unavailable', err instanceof Error ? (err.stack ?? err.message) : String(err));
  const status = (err as { status?: unknown }).status;
  if (status === 404) return new ServiceError('not_found');
  if (status === 405) return new ServiceError('method_not_allowed');
  return new ServiceError('internal', err instanceof Error ? (err.stack ?? err.message) : String(err));
}

function describeFailure(err: Error): string {
  const parts: string[] = [];
  for (let cause: unknown = err; cause instanceof Error; cause = (cause as { cause?: unknown }).cause) {
    parts.push(`${cause.name}: ${cause.message}`);
  }
  return parts.join(' <- ');
}

export function errorResponses(): Middleware<ApiState> {
  return async (ctx, next) => {
    try {
      await next();
    } catch (err) {
      const error = toServiceError(err);
      ctx.status = error.status;
      // Read by the official clients, which otherwise retry every 408, 409, 429 and 5xx.
      if (!RETRYABLE.has(error.code)) ctx.set('x-should-retry', 'false');
      if (error.code === 'unavailable') ctx.set('retry-after', String(UNAVAILABLE_RETRY_AFTER_S));
      if (error instanceof RateLimitedError) ctx.set('retry-after', String(error.retryAfterS));
      ctx.body = { error: error.message, ...(error.reason === undefined ? {} : { reason: error.reason }) };
      ctx.state.errorDetail = error.detail;
    }
  };
}
