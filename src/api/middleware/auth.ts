import type { Middleware } from 'koa';
import type { Billing } from '../../billing/billing';
import { ServiceError } from '../../errors';
import type { RateLimits } from '../../limits/rateLimits';
import { bearerToken } from '../keyRing';
import { identify, type ApiState } from '../state';
import { rateLimited, setRateLimitHeaders } from './rateLimit';

/**
 * Bearer authentication: the key names the caller's organization. A source address that keeps
 * presenting missing or unknown keys gets 401 until its limit of failures, then 429 for every
 * request until the window ends, so keys cannot be guessed at speed. The address is the peer's
 * (the app trusts no forwarding headers).
 */
export function bearerAuth(
  billing: Pick<Billing, 'organizationOf'>,
  limits: Pick<RateLimits, 'blockedFor' | 'countAuthFailure'>,
): Middleware<ApiState> {
  return async (ctx, next) => {
    const blocked = limits.blockedFor(ctx.ip);
    if (blocked) {
      setRateLimitHeaders(ctx, blocked);
      throw rateLimited(blocked, `${ctx.ip} is past its limit of failed authentications`);
    }
    const organization = await billing.organizationOf(bearerToken(ctx.get('authorization')));
    if (!organization) {
      const failures = await limits.countAuthFailure(ctx.ip);
      setRateLimitHeaders(ctx, failures);
      if (!failures.allowed) throw rateLimited(failures, `${ctx.ip} failed authentication too often`);
      throw new ServiceError('unauthorized');
    }
    identify(ctx.state, { organization });
    await next();
  };
}
