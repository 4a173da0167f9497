import type { Context, Middleware } from 'koa';
import { insufficientCredits, type Billing } from '../../billing/billing';
import { RateLimitedError } from '../../errors';
import type { Count, RateLimits } from '../../limits/rateLimits';
import type { ApiState, RequestCount } from '../state';

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

/**
 * Counts every request of an organization against its requests per minute; 429 past them. A
 * request `deferred` picks says when it is counted through `ctx.state.requestCount`, so that a
 * cache hit's count can go in the statement that charges it: it is counted before any run or
 * charge of its own, and at the latest once its route is done, so a 429 still wins over any other
 * answer the route gave. An organization a count here found past its limit is refused before any
 * of that for as long as its limits are trusted (RateLimits.refusalOf).
 */
export function requestRateLimit(
  limits: Pick<RateLimits, 'countRequest' | 'requestWindow' | 'refusalOf' | 'noteCount'>,
  options: {
    billing?: Pick<Billing, 'chargeCacheHit' | 'countAndChargeCacheHit'>;
    deferred?: (ctx: Context) => boolean;
  } = {},
): Middleware<ApiState> {
  return async (ctx, next) => {
    const organization = ctx.state.organization!;
    const refuse = (count: Count): never => {
      throw rateLimited(count, `${organization} made over ${count.limit} requests this minute`);
    };
    const counted = (count: Count): void => {
      setRateLimitHeaders(ctx, count);
      limits.noteCount(organization, count);
      if (!count.allowed) refuse(count);
    };
    // Not noted again: the refusal lasts only as long as the count that found it is trusted.
    const refusal = limits.refusalOf(organization);
    if (refusal) {
      setRateLimitHeaders(ctx, refusal);
      refuse(refusal);
    }
    const { billing, deferred } = options;
    if (!billing || !deferred?.(ctx)) {
      counted(await limits.countRequest(organization));
      return next();
    }
    let taken: Promise<void> | undefined;
    const requestCount: RequestCount = {
      take: () => (taken ??= limits.countRequest(organization).then(counted)),
      takeWithCacheHit: () =>
        (taken ??= (async () => {
          const window = billing.countAndChargeCacheHit && (await limits.requestWindow(organization));
          if (!window) {
            counted(await limits.countRequest(organization));
            return billing.chargeCacheHit(organization);
          }
          const hit = await billing.countAndChargeCacheHit!(organization, window);
          counted(hit.count);
          if (!hit.paid) throw insufficientCredits(organization, hit.price);
        })()),
    };
    ctx.state.requestCount = requestCount;
    try {
      await next();
    } catch (err) {
      await requestCount.take();
      throw err;
    }
    await requestCount.take();
  };
}
