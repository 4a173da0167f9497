import type Router from '@koa/router';
import type { ApiState } from '../state';
import type { ApiDocument } from './document';

/**
 * The description as served: only the operations the app routes, so it never offers one that
 * would answer 404 (Automate's are described before their routes land). The reverse holds too:
 * a route the description lacks stops the app at start, naming it.
 */

type PathItem = ApiDocument['paths'][string];

const METHODS = new Set(['get', 'put', 'post', 'delete', 'patch']);

/** `/runs/{runId}/events` and `/runs/:id/events` both read `/runs/{}/events`: parameter names do not matter. */
function shape(path: string): string {
  return path.replace(/\{[^{}]+\}/g, '{}').replace(/:\w+/g, '{}');
}

/** The routed operations as `post /runs/{}/events`, paths relative to `prefix`. */
function routes(routers: Router<ApiState>[], prefix: string): Set<string> {
  const found = new Set<string>();
  for (const router of routers) {
    for (const layer of router.stack) {
      if (typeof layer.path !== 'string' || !layer.path.startsWith(prefix)) continue;
      for (const method of layer.methods) {
        const lower = method.toLowerCase();
        if (METHODS.has(lower)) found.add(`${lower} ${shape(layer.path.slice(prefix.length))}`);
      }
    }
  }
  return found;
}

/** Paths with servers of their own (`/healthz`) are outside the routers' prefix and kept as they are. */
const outsidePrefix = (item: PathItem) => Array.isArray(item.servers);

export function undocumentedRoutes(document: ApiDocument, routers: Router<ApiState>[], prefix: string): string[] {
  const documented = new Set<string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of Object.keys(item)) if (METHODS.has(method)) documented.add(`${method} ${shape(path)}`);
  }
  return [...routes(routers, prefix)].filter((route) => !documented.has(route));
}

export function routedDocument(document: ApiDocument, routers: Router<ApiState>[], prefix: string): ApiDocument {
  const routed = routes(routers, prefix);
  const paths: Record<string, PathItem> = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (outsidePrefix(item)) {
      paths[path] = item;
      continue;
    }
    const kept = Object.entries(item).filter(([key]) => !METHODS.has(key) || routed.has(`${key} ${shape(path)}`));
    if (kept.some(([key]) => METHODS.has(key))) paths[path] = Object.fromEntries(kept);
  }
  return { ...document, paths };
}
