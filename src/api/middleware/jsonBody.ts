import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { ServiceError } from '../../errors';
import type { ApiState } from '../state';

/** Reads a JSON object body within the size limit; anything else is the spec's 400 or a 413. */
export function jsonBody(limitBytes: number): Middleware<ApiState> {
  return async (ctx, next) => {
    if (!['POST', 'PUT', 'PATCH'].includes(ctx.method)) return next();
    let text: string;
    try {
      text = await getRawBody(ctx.req, {
        limit: limitBytes,
        length: ctx.get('content-length') || undefined,
        encoding: 'utf-8',
      });
    } catch (err) {
      if ((err as { type?: string }).type === 'entity.too.large') throw new ServiceError('body_too_large');
      throw new ServiceError('invalid_json', err instanceof Error ? err.message : String(err));
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ServiceError('invalid_json');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new ServiceError('invalid_json');
    ctx.state.body = parsed as Record<string, unknown>;
    await next();
  };
}
