import type { Middleware } from 'koa';
import type { Billing } from '../../billing/billing';
import { ServiceError } from '../../errors';
import { bearerToken } from '../keyRing';
import { identify, type ApiState } from '../state';

/** Bearer authentication: the key names the caller's organization. */
export function bearerAuth(billing: Pick<Billing, 'organizationOf'>): Middleware<ApiState> {
  return async (ctx, next) => {
    const organization = await billing.organizationOf(bearerToken(ctx.get('authorization')));
    if (!organization) throw new ServiceError('unauthorized');
    identify(ctx.state, { organization });
    await next();
  };
}
