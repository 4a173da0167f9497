import type { Middleware } from 'koa';
import { cachePartition, markdownCacheKey } from '../../cache/resultCache';
import { withFrontMatter } from '../../extraction/frontMatter';
import type { ExtractMarkdownRequest, ExtractMarkdownResponse } from '../../operations/extractMarkdown';
import type { PageMetadata } from '../../types';
import { extractMarkdown } from '../../workflows';
import { pageTargetUrl } from '../requestBody/pageTarget';
import { extractMarkdownBody } from '../requestBody/requestBodies';
import type { ApiState } from '../state';
import type { ApiDeps } from '../deps';
import { activityTimeouts, OPERATION_DEADLINE_MS } from '../../config/timeouts';

/** Spec §2.3 with its defaults applied. */
export function parseExtractMarkdown(body: Record<string, unknown>): ExtractMarkdownRequest {
  return extractMarkdownBody.parse(body);
}

/** Spec §2.4: metadata as its own field when asked for, else as front matter in the content. */
function render(request: ExtractMarkdownRequest, markdown: string, metadata: PageMetadata): ExtractMarkdownResponse {
  return request.metadata
    ? { content: markdown, url: request.url, metadata }
    : { content: withFrontMatter(markdown, metadata), url: request.url };
}

/**
 * POST /extract/markdown: a cache hit is answered at once; a miss (or `nocache`) runs one
 * workflow and refreshes the cache with its result. In the global cache scope `x-cache` is left
 * out, so no header tells one organization what another fetched.
 */
export function extractMarkdownRoute(deps: ApiDeps): Middleware<ApiState> {
  const global = deps.config.cache.scope === 'global';
  return async (ctx) => {
    const request = parseExtractMarkdown(ctx.state.body ?? {});
    const url = pageTargetUrl(deps, request);
    const key = markdownCacheKey(request, cachePartition(deps.config.cache.scope, ctx.state.organization!));
    const cached = request.nocache ? undefined : await deps.cache?.get(key);
    // Counted before the address's DNS lookup, unless a hit's charge counts it.
    const { requestCount } = ctx.state;
    if (!cached) await requestCount?.take();
    await deps.policy.checkUrl(url);
    if (cached) {
      await (requestCount ? requestCount.takeWithCacheHit() : deps.billing.chargeCacheHit(ctx.state.organization!));
      if (!global) ctx.set('x-cache', 'hit');
      ctx.body = render(request, cached.markdown, cached.metadata);
      return;
    }
    const result = await deps.runWorkflow(ctx, 'extract-markdown', extractMarkdown, {
      args: [
        {
          request,
          queues: { fetch: deps.config.taskQueues.fetch, browser: deps.config.taskQueues.browser },
          timeouts: activityTimeouts(deps.config),
        },
      ],
      url: request.url,
      timeout: OPERATION_DEADLINE_MS['extract-markdown'],
    });
    await deps.cache?.set(key, { markdown: result.content, metadata: result.metadata, storedAt: Date.now() });
    if (!global) ctx.set('x-cache', 'miss');
    ctx.body = render(request, result.content, result.metadata);
  };
}
