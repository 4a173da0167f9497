import type { Middleware } from 'koa';
import { invalidField } from '../../errors';
import { CONTENT_SCOPES, EFFORTS, type ExtractMarkdownRequest } from '../../types';
import { extractMarkdown } from '../../workflows';
import { RequestFields } from '../requestFields';
import type { ApiState } from '../state';
import type { ApiDeps } from '../app';

/** Spec 2.3 with its defaults applied. */
export function parseExtractMarkdown(body: Record<string, unknown>): ExtractMarkdownRequest {
  const fields = new RequestFields(body);
  return {
    url: fields.requiredString('url', 'url_required'),
    content: fields.optionalEnum('content', CONTENT_SCOPES, 'main'),
    effort: fields.optionalEnum('effort', EFFORTS, 'standard'),
    geo_target: fields.optionalGeoTarget(),
    metadata: fields.optionalBoolean('metadata', false),
    nocache: fields.optionalBoolean('nocache', false),
  };
}

/** POST /extract/markdown: one workflow per request, answered with its result. */
export function extractMarkdownRoute(deps: ApiDeps): Middleware<ApiState> {
  return async (ctx) => {
    const request = parseExtractMarkdown(ctx.state.body ?? {});
    if (request.geo_target?.country) {
      throw invalidField(`no proxy is configured for geo_target.country ${request.geo_target.country}`);
    }
    await deps.policy.checkUrl(deps.policy.parseUrl(request.url));
    ctx.body = await deps.runWorkflow(ctx, 'extract-markdown', extractMarkdown, {
      args: [{ request, fetchQueue: deps.config.taskQueues.fetch }],
      url: request.url,
      timeout: '175s',
    });
  };
}
