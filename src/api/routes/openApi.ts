import type Router from '@koa/router';
import type { Middleware } from 'koa';
import { apiDocument, type ApiDocument } from '../openapi/document';
import { routedDocument } from '../openapi/routedDocument';
import type { ApiState } from '../state';

/**
 * GET /openapi.json: the API description, without a key (documentation is public, and it holds
 * nothing of any organization). Built at the first request, once the routers are complete.
 */
export function openApiRoute(routers: Router<ApiState>[], prefix: string): Middleware<ApiState> {
  let served: ApiDocument | undefined;
  return (ctx) => {
    served ??= routedDocument(apiDocument(), routers, prefix);
    ctx.body = served;
  };
}
