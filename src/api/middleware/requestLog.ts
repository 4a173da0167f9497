import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from '../../logger';
import type { ApiState } from '../state';

/** The codec's secret path segment (see codecAuth), whether right or wrong, never reaches the log. */
function loggedPath(path: string): string {
  return path.replace(/^\/codec\/[^/]+\/(?=[^/]*$)/, '/codec/:secret/');
}

/**
 * One log line per request with its id, and the organization, workflow id and run id once known
 * (see `identify`), so a request in the log leads straight to its run in the Temporal UI.
 * Headers are never logged: they carry keys.
 */
export function requestLog(logger: Logger): Middleware<ApiState> {
  return async (ctx, next) => {
    const started = performance.now();
    const incoming = ctx.get('x-request-id');
    const requestId = /^[\w.-]{1,64}$/.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ requestId });
    ctx.set('x-request-id', requestId);
    try {
      await next();
    } finally {
      const entry = {
        method: ctx.method,
        path: loggedPath(ctx.path),
        status: ctx.status,
        ms: Math.round(performance.now() - started),
        error: ctx.state.errorDetail,
      };
      if (ctx.status >= 500) ctx.state.log.error(entry, 'request failed');
      else ctx.state.log.info(entry, 'request');
    }
  };
}
