import type { Middleware } from 'koa';
import { ServiceError } from '../../errors';
import { bearerToken, KeyRing } from '../keyRing';
import { identify, type ApiState } from '../state';

/** Bearer authentication: the key names the caller's organization. */
export function bearerAuth(keys: ReadonlyMap<string, string>): Middleware<ApiState> {
  const organizations = new KeyRing(keys);
  return async (ctx, next) => {
    const organization = organizations.find(bearerToken(ctx.get('authorization')));
    if (!organization) throw new ServiceError('unauthorized');
    identify(ctx.state, { organization });
    await next();
  };
}
