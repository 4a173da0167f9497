import type { Middleware } from 'koa';
import type { CorsSettings } from '../../config';
import { ServiceError } from '../../errors';
import type { ApiState } from '../state';

/** The methods a path answers, or undefined when no route has that path. */
export type RouteMethods = (path: string) => string[] | undefined;

/** What a caller may send: its key, the JSON type, the UI's namespace header, a trace id. */
const ALLOWED_HEADERS = 'authorization, content-type, x-namespace, x-request-id';
/** Response headers a page may read besides the CORS-safelisted ones. */
const EXPOSED_HEADERS =
  'x-request-id, x-trace-id, x-workflow-id, x-run-id, x-cache, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * The one place for cross-origin rules and OPTIONS. An origin on the path's allowlist gets
 * `Access-Control-Allow-Origin` with its own value; any other origin gets no CORS header, so
 * browsers keep its pages from reading answers. OPTIONS is answered here, before
 * authentication (a preflight carries no key): 204 with `Allow` for a route, plus the CORS
 * grant for an allowed origin's preflight, and 404 for a path with no route.
 */
export function crossOrigin(settings: CorsSettings, methodsOf: RouteMethods): Middleware<ApiState> {
  const apiOrigins = new Set(settings.apiOrigins);
  const codecOrigins = new Set(settings.codecOrigins);
  return async (ctx, next) => {
    const codec = ctx.path.startsWith('/codec/');
    const origin = ctx.get('origin');
    const allowed = origin !== '' && (codec ? codecOrigins : apiOrigins).has(origin);
    ctx.vary('origin');
    if (allowed) {
      ctx.set('access-control-allow-origin', origin);
      // The UI's "include cross-origin credentials" sends cookies, for a proxy in front that checks them.
      if (codec) ctx.set('access-control-allow-credentials', 'true');
      else ctx.set('access-control-expose-headers', EXPOSED_HEADERS);
    }
    if (ctx.method !== 'OPTIONS') return next();
    const methods = methodsOf(ctx.path);
    if (!methods) throw new ServiceError('not_found');
    ctx.set('allow', [...methods, 'OPTIONS'].join(', '));
    if (allowed && ctx.get('access-control-request-method')) {
      ctx.set('access-control-allow-methods', methods.join(', '));
      ctx.set('access-control-allow-headers', ALLOWED_HEADERS);
      ctx.set('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS);
    }
    ctx.status = 204;
  };
}
