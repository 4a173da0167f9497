import type Router from '@koa/router';
import type { Middleware } from 'koa';
import type { ApiMetrics } from '../../telemetry/metrics/apiMetrics';
import type { ApiState } from '../state';

/**
 * The route a path is served by, as its pattern (`/v1/runs/:runId/events`), so a label never
 * holds ids; any other path is `unmatched`, however many a scanner tries.
 */
function routePattern(routers: Router<ApiState>[]): (path: string) => string {
  return (path) => {
    for (const router of routers) {
      for (const layer of router.stack) if (layer.methods.length > 0 && layer.match(path)) return String(layer.path);
    }
    return 'unmatched';
  };
}

/** Counts every answer by route and status, and times it. Runs outside errorResponses, so it sees the final status. */
export function httpMetrics(metrics: ApiMetrics, routers: Router<ApiState>[]): Middleware<ApiState> {
  const routeOf = routePattern(routers);
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const labels = { method: ctx.method, route: routeOf(ctx.path), status: String(ctx.status) };
      metrics.requests.inc(labels);
      metrics.requestSeconds.observe(labels, (performance.now() - started) / 1000);
    }
  };
}
