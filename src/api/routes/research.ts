import type { Middleware } from 'koa';
import { cachePartition } from '../../cache/resultCache';
import { researchProblem } from '../../operations/availability';
import { ServiceError } from '../../errors';
import type { Config } from '../../config';
import { research, type ResearchInput, type ResearchRequest } from '../../workflows';
import { researchBody } from '../requestBody/requestBodies';
import type { ApiState } from '../state';
import type { ApiDeps } from '../deps';
import { activityTimeouts, RESEARCH_DEADLINE_MS } from '../../config/timeouts';

/** Spec 2.8 with its defaults applied. */
export function parseResearchRequest(body: Record<string, unknown>): ResearchRequest {
  const { query, fetch_timeout, mode, nocache } = researchBody.parse(body);
  return {
    query,
    mode,
    ...(fetch_timeout !== undefined ? { fetchTimeoutMs: Math.ceil(fetch_timeout * 1000) } : {}),
    nocache,
  };
}

/** The run's input: the request, where its activities run, and the limits they keep. */
export function researchInput(config: Config, request: ResearchRequest, organization: string): ResearchInput {
  const { fetch, browser, model, search } = config.taskQueues;
  return {
    request,
    queues: { fetch, browser, model, search },
    cachePartition: cachePartition(config.cache.scope, organization),
    pageConcurrency: config.research.pageConcurrency,
    pageTokens: config.research.pageTokens,
    timeouts: activityTimeouts(config, request.fetchTimeoutMs),
  };
}

/**
 * POST /research: one workflow per request, answered with its event stream (spec 4 rule 3).
 * A bad body is 400 and a service without a search engine or a model 503, before any stream.
 */
export function researchRoute(deps: ApiDeps): Middleware<ApiState> {
  return async (ctx) => {
    const request = parseResearchRequest(ctx.state.body ?? {});
    const problem = researchProblem(deps.config);
    if (problem) throw new ServiceError('research_unavailable', problem);
    await deps.streamWorkflow(ctx, 'research', research, {
      args: [researchInput(deps.config, request, ctx.state.organization!)],
      timeout: RESEARCH_DEADLINE_MS[request.mode],
      priced: `research-${request.mode}`,
    });
  };
}
