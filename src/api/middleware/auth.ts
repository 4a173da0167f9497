import { createHash, timingSafeEqual } from 'node:crypto';
import type { Middleware } from 'koa';
import { ServiceError } from '../../errors';
import type { ApiState } from '../state';

/**
 * Bearer authentication. Keys are compared as SHA-256 digests in constant time, against every
 * key, so neither timing nor early exit tells a caller how close a guess was.
 */
export function bearerAuth(keys: ReadonlyMap<string, string>): Middleware<ApiState> {
  const digest = (key: string): Buffer => createHash('sha256').update(key).digest();
  const known = [...keys].map(([key, organization]) => ({ digest: digest(key), organization }));
  return async (ctx, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    let organization: string | undefined;
    if (match?.[1]) {
      const presented = digest(match[1]);
      for (const entry of known) {
        if (timingSafeEqual(entry.digest, presented)) organization = entry.organization;
      }
    }
    if (!organization) throw new ServiceError('unauthorized');
    ctx.state.organization = organization;
    await next();
  };
}
