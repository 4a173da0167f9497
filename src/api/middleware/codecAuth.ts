import type { RouterMiddleware } from '@koa/router';
import { ServiceError } from '../../errors';
import type { Billing } from '../../billing/billing';
import { bearerToken, KeyRing } from '../keyRing';
import { identify, type ApiState } from '../state';

/**
 * Who may use the codec. A client with an API key, as `Authorization: Bearer` (the Temporal
 * CLI sends one with `--codec-auth`). Or the Temporal Web UI, whose codec endpoint carries
 * CODEC_SECRET as a path segment (`/codec/<secret>`): the UI sends no header of its own, only
 * the token of its OIDC login when it has one, which this service cannot check. The request
 * log leaves the secret out.
 */
export function codecAuth(
  keys: Pick<Billing, 'organizationOf'>,
  secret: string | undefined,
): RouterMiddleware<ApiState> {
  const secrets = new KeyRing<true>(secret ? [[secret, true]] : []);
  return async (ctx, next) => {
    const pathSecret = ctx.params.secret;
    if (pathSecret !== undefined) {
      if (!secrets.find(pathSecret)) throw new ServiceError('unauthorized');
    } else {
      const organization = await keys.organizationOf(bearerToken(ctx.get('authorization')));
      if (!organization) throw new ServiceError('unauthorized');
      identify(ctx.state, { organization });
    }
    await next();
  };
}
