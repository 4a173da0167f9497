import Router from '@koa/router';
import Koa from 'koa';
import { ServiceError } from '../errors';
import type { Logger } from '../telemetry/logger';
import { bearerAuth } from './middleware/auth';
import { crossOrigin } from './middleware/crossOrigin';
import { errorResponses } from './middleware/errorResponses';
import { httpMetrics } from './middleware/httpMetrics';
import { jsonBody } from './middleware/jsonBody';
import { requestRateLimit } from './middleware/rateLimit';
import { requestLog } from './middleware/requestLog';
import { mcpRouter } from './mcp/endpoint';
import { apiDocument } from './openapi/document';
import { undocumentedRoutes } from './openapi/routedDocument';
import { automateInputRoute, automateRoute } from './routes/automate';
import { codecRouter } from './routes/codec';
import { extractMarkdownRoute } from './routes/extractMarkdown';
import { openApiRoute } from './routes/openApi';
import { operationalEndpoints } from './routes/operational';
import { playgroundRoutes } from './routes/playground';
import { researchRoute } from './routes/research';
import { runEventsRoute } from './routes/runEvents';
import { structuredJsonRoute } from './routes/structuredJson';
import type { ApiDeps } from './deps';
import type { ApiState } from './state';

/** The methods the routers answer at a path, for OPTIONS. */
function routeMethods(routers: Router<ApiState>[]): (path: string) => string[] | undefined {
  return (path) => {
    const methods = new Set<string>();
    for (const router of routers) {
      for (const layer of router.stack) if (layer.match(path)) layer.methods.forEach((method) => methods.add(method));
    }
    return methods.size > 0 ? [...methods] : undefined;
  };
}

/** Where the versioned API lives (spec §9). */
const API_PREFIX = '/v1';

export function createApp(deps: ApiDeps, logger: Logger): Koa<ApiState> {
  const app = new Koa<ApiState>({ proxy: false });
  // Failures after the answer has started; a client leaving an event stream early is normal.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err }, 'response failed');
  });
  const router = new Router<ApiState>({ prefix: API_PREFIX });
  router.post('/extract/markdown', extractMarkdownRoute(deps));
  router.post('/extract/json', structuredJsonRoute(deps, 'extract-json'));
  router.post('/generate/json', structuredJsonRoute(deps, 'generate-json'));
  router.post('/research', researchRoute(deps));
  router.post('/automate', automateRoute(deps));
  router.post('/automate/:requestID/input', automateInputRoute(deps));
  router.get('/runs/:runId/events', runEventsRoute(deps));
  // Routes that need no key.
  const open = new Router<ApiState>({ prefix: API_PREFIX });
  open.get('/openapi.json', openApiRoute([open, router], API_PREFIX));
  const undocumented = undocumentedRoutes(apiDocument(), [open, router], API_PREFIX);
  if (undocumented.length > 0)
    throw new Error(`routes missing from the API description (src/api/openapi/): ${undocumented.join(', ')}`);
  const codec = codecRouter(deps.billing, deps.config.codec);
  const mcp = mcpRouter(deps);

  app.use(operationalEndpoints({ ...deps, metricsToken: deps.config.metrics.token }));
  app.use(requestLog(logger));
  app.use(httpMetrics(deps.metrics, [codec, open, router, mcp]));
  app.use(errorResponses());
  app.use(playgroundRoutes(deps.config));
  app.use(crossOrigin(deps.config.cors, routeMethods([codec, open, router, mcp])));
  app.use(codec.routes());
  app.use(open.routes());
  app.use(bearerAuth(deps.billing, deps.rateLimits));
  // Before the request count: a tool call counts as one /v1 request, the protocol's own messages do not.
  app.use(mcp.routes());
  // A cache hit's request is counted by the statement that charges it: the route says when.
  app.use(
    requestRateLimit(deps.rateLimits, {
      billing: deps.billing,
      deferred: (ctx) => ctx.method === 'POST' && ctx.path === `${API_PREFIX}/extract/markdown`,
    }),
  );
  app.use(jsonBody(deps.config.bodyLimitBytes));
  app.use(async (ctx, next) => {
    await next();
    if (ctx.status === 404 && ctx.body == null) throw new ServiceError('not_found');
  });
  app.use(router.routes());
  app.use(
    router.allowedMethods({
      throw: true,
      methodNotAllowed: () => new ServiceError('method_not_allowed'),
      notImplemented: () => new ServiceError('method_not_allowed'),
    }),
  );
  return app;
}
