import type { Context, Middleware } from 'koa';
import { RateLimitedError } from '../../errors';
import type { Count, RateLimits } from '../../limits/rateLimits';
import type { ApiState } from '../state';

/** Seconds, whole and at least 1: a client waiting 0 would come back inside the same window. */
const seconds = (ms: number): number => Math.max(1, Math.ceil(ms / 1000));

/**
 * The figures of the limit a request was counted against: the organization's requests per minute,
 * or, for a request without a good key, its address's failures. `X-RateLimit-Reset` is in seconds
 * from now, as Retry-After is, so no clock needs to agree with ours.
 */
export function setRateLimitHeaders(ctx: Context, count: Count): void {
  ctx.set('x-ratelimit-limit', String(count.limit));
  ctx.set('x-ratelimit-remaining', String(count.remaining));
  ctx.set('x-ratelimit-reset', String(seconds(count.resetMs)));
}

/** A 429 for a count past its limit, to try again when the window ends. */
export function rateLimited(count: Count, detail: string): RateLimitedError {
  return new RateLimitedError(seconds(count.resetMs), detail);
}

/** Counts every request of an organization against its requests per minute; 429 past them. */
export function requestRateLimit(limits: Pick<RateLimits, 'countRequest'>): Middleware<ApiState> {
  return async (ctx, next) => {
    const organization = ctx.state.organization!;
    const count = await limits.countRequest(organization);
    setRateLimitHeaders(ctx, count);
    if (!count.allowed) throw rateLimited(count, `${organization} made over ${count.limit} requests this minute`);
    await next();
  };
}
