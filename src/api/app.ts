import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { ulid } from 'ulid';
import type { Client, WorkflowStartOptions } from '@temporalio/client';
import type { Duration, WorkflowResultType } from '@temporalio/common';
import type { Workflow } from '@temporalio/workflow';
import { createResultCache } from '../cache/createCache';
import type { ResultCache } from '../cache/resultCache';
import { WriteBehindCache } from '../cache/writeBehindCache';
import type { Config } from '../config';
import { ServiceError } from '../errors';
import type { Logger } from '../logger';
import { AddressPolicy } from '../net/addressPolicy';
import { createStreamedRuns, type StreamedRuns } from './events/streamedRuns';
import { bearerAuth } from './middleware/auth';
import { crossOrigin } from './middleware/crossOrigin';
import { errorResponses } from './middleware/errorResponses';
import { jsonBody } from './middleware/jsonBody';
import { requestLog } from './middleware/requestLog';
import { codecRouter } from './routes/codec';
import { extractMarkdownRoute } from './routes/extractMarkdown';
import { researchRoute } from './routes/research';
import { runEventsRoute } from './routes/runEvents';
import { structuredJsonRoute } from './routes/structuredJson';
import type { ApiState } from './state';

export interface RunOptions<W extends Workflow> {
  args: Parameters<W>;
  /** Shown in the Temporal UI beside the run. */
  url?: string;
  timeout: Duration;
}

export interface ApiDeps extends StreamedRuns {
  config: Config;
  policy: AddressPolicy;
  cache?: ResultCache;
  /** Starts one workflow for the request and waits for its result. */
  runWorkflow<W extends Workflow>(ctx: Context, operation: string, workflow: W, options: RunOptions<W>): Promise<WorkflowResultType<W>>;
}

export function createApiDeps(config: Config, client: Client, logger: Logger): ApiDeps {
  const store = createResultCache(config.cache);
  return {
    ...createStreamedRuns(config, client, logger),
    config,
    policy: new AddressPolicy(config.allowInternalHosts),
    cache: store && new WriteBehindCache(store, (err) => logger.warn({ err }, 'cache write failed')),
    async runWorkflow(ctx, operation, workflow, options) {
      const organization = (ctx.state as ApiState).organization ?? 'anonymous';
      // The id names the organization and operation so runs can be found by either in the UI.
      const workflowId = `${organization}/${operation}/${ulid()}`;
      (ctx.state as ApiState).workflowId = workflowId;
      ctx.set('x-workflow-id', workflowId);
      return client.workflow.execute(workflow, {
        workflowId,
        taskQueue: config.taskQueues.workflows,
        args: options.args,
        workflowExecutionTimeout: options.timeout,
        memo: { organization, operation, ...(options.url ? { url: options.url } : {}) },
        staticSummary: options.url ? `${operation} ${options.url}` : operation,
      } as unknown as WorkflowStartOptions<typeof workflow>);
    },
  };
}

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

export function createApp(deps: ApiDeps, logger: Logger): Koa<ApiState> {
  const app = new Koa<ApiState>({ proxy: false });
  // Failures after the answer has started; a client leaving an event stream early is normal.
  app.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'ERR_STREAM_PREMATURE_CLOSE') logger.error({ err }, 'response failed');
  });
  const router = new Router<ApiState>({ prefix: '/v1' });
  router.post('/extract/markdown', extractMarkdownRoute(deps));
  router.post('/extract/json', structuredJsonRoute(deps, 'extract-json'));
  router.post('/generate/json', structuredJsonRoute(deps, 'generate-json'));
  router.post('/research', researchRoute(deps));
  router.get('/runs/:runId/events', runEventsRoute(deps));
  const codec = codecRouter(deps.config.apiKeys, deps.config.codec);

  app.use(requestLog(logger));
  app.use(errorResponses());
  app.use(async (ctx, next) => {
    if (ctx.path === '/healthz') {
      ctx.body = { status: 'ok' };
      return;
    }
    await next();
  });
  app.use(crossOrigin(deps.config.cors, routeMethods([codec, router])));
  app.use(codec.routes());
  app.use(bearerAuth(deps.config.apiKeys));
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
