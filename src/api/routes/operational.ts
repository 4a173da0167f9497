import type { Middleware } from 'koa';
import { ERRORS } from '../../errors';
import type { ApiMetrics } from '../../telemetry/metrics/apiMetrics';
import { metricsAccess } from '../../telemetry/metrics/metricsAccess';
import type { Readiness } from '../readiness';
import type { ApiState } from '../state';

export interface OperationalDeps {
  metrics: ApiMetrics;
  readiness: Readiness;
  metricsToken?: string;
}

/**
 * The paths a platform, not a client, calls: /health (the process is up; /healthz too), /ready
 * (it can serve requests: 200, else 503 naming what is missing) and /metrics (Prometheus). They
 * need no API key and are neither logged nor counted, so frequent probes and scrapes stay cheap
 * and out of the request log. /metrics asks for METRICS_TOKEN when one is set.
 */
export function operationalEndpoints(deps: OperationalDeps): Middleware<ApiState> {
  const mayReadMetrics = metricsAccess(deps.metricsToken);
  return async (ctx, next) => {
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') return next();
    if (ctx.path === '/health' || ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
    } else if (ctx.path === '/ready') {
      const { ready, missing, queues } = await deps.readiness.check();
      ctx.status = ready ? 200 : 503;
      ctx.body = ready ? { status: 'ready', queues } : { status: 'not ready', missing, queues };
    } else if (ctx.path === '/metrics') {
      if (!mayReadMetrics(ctx.get('authorization'))) {
        ctx.status = ERRORS.unauthorized.status;
        ctx.body = { error: ERRORS.unauthorized.message };
        return;
      }
      ctx.type = deps.metrics.registry.contentType;
      ctx.body = await deps.metrics.registry.metrics();
    } else {
      await next();
    }
  };
}
