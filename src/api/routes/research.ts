import type { Middleware } from 'koa';
import { cachePartition } from '../../cache/resultCache';
import { researchProblem } from '../../config';
import { ServiceError } from '../../errors';
import type { ResearchMode } from '../../events/research';
import { research, type ResearchRequest } from '../../workflows';
import { RequestFields } from '../requestFields';
import type { ApiState } from '../state';
import type { ApiDeps } from '../app';
import { activityTimeouts, RESEARCH_DEADLINE_MS } from '../../timeouts';

/** Spec section 8. */
export const MAX_QUERY = 10_000;
const MODES: readonly ResearchMode[] = ['fast', 'balanced'];
/** `fetch_timeout` in seconds; the spec shows no bounds, and a page fetch's activity allows a minute. */
const MAX_FETCH_TIMEOUT_S = 60;

/** Spec 2.8 with its defaults applied: `mode` is `fast` unless asked, as the official client documents. */
export function parseResearchRequest(body: Record<string, unknown>): ResearchRequest {
  const fields = new RequestFields(body);
  const query = fields.requiredString('query', 'query_required');
  if (query.length > MAX_QUERY) throw new ServiceError('query_too_long');
  const fetchTimeout = fields.optionalInteger('fetch_timeout', 1, MAX_FETCH_TIMEOUT_S, 'seconds');
  return {
    query,
    mode: fields.optionalEnum('mode', MODES, 'fast'),
    ...(fetchTimeout !== undefined ? { fetchTimeoutMs: fetchTimeout * 1000 } : {}),
    nocache: fields.optionalBoolean('nocache', false),
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
    const { fetch, browser, model, search } = deps.config.taskQueues;
    const { research: settings, cache } = deps.config;
    await deps.streamWorkflow(ctx, 'research', research, {
      args: [
        {
          request,
          queues: { fetch, browser, model, search },
          cachePartition: cachePartition(cache.scope, ctx.state.organization!),
          pageConcurrency: settings.pageConcurrency,
          pageTokens: settings.pageTokens,
          timeouts: activityTimeouts(deps.config),
        },
      ],
      timeout: RESEARCH_DEADLINE_MS[request.mode],
    });
  };
}
