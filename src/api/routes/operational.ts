import type { Middleware } from 'koa';
import { ERRORS } from '../../errors';
import type { ApiMetrics } from '../../metrics/apiMetrics';
import { metricsAccess } from '../../metrics/metricsAccess';
import type { ApiState } from '../state';

/**
 * The paths a platform, not a client, calls: /health (the process is up; /healthz too) and
 * /metrics (Prometheus). They need no API key and are neither logged nor counted, so frequent
 * probes and scrapes stay cheap and out of the request log. /metrics asks for METRICS_TOKEN when
 * one is set.
 */
export function operationalEndpoints(metrics: ApiMetrics, metricsToken: string | undefined): Middleware<ApiState> {
  const mayReadMetrics = metricsAccess(metricsToken);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/health' || ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
    } else if (ctx.path === '/metrics') {
      if (!mayReadMetrics(ctx.get('authorization'))) {
        ctx.status = ERRORS.unauthorized.status;
        ctx.body = { error: ERRORS.unauthorized.message };
        return;
      }
      ctx.type = metrics.registry.contentType;
      ctx.body = await metrics.registry.metrics();
    } else {
      await next();
    }
  };
}
