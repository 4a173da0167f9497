import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Middleware } from 'koa';
import type { Config } from '../../config';
import { ServiceError } from '../../errors';
import type { ApiState } from '../state';

/** Where `npm run build` writes the page (src/playground/build.mjs): dist/src/playground. */
const BUILT_DIR = path.resolve(__dirname, '..', '..', 'playground');

/**
 * The page renders what hostile pages and model answers wrote, so nothing but its own script may
 * run (no inline script, no eval), it talks only to this origin, and images are the screenshots
 * events carry as data URLs: a page's own image addresses are never fetched.
 */
export const PLAYGROUND_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  'img-src data:',
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const FILES: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/playground/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/playground/app.css': { file: 'app.css', type: 'text/css; charset=utf-8' },
};

const SETTINGS_PATH = '/playground/settings.json';

/**
 * GET / : the playground, a page people try the operations from with their own key, which stays
 * in their browser (the page sends it as the bearer credential, like any client). Its files need
 * no key; /playground/settings.json tells it where the Temporal Web UI is, nothing secret.
 * Registered before authentication and before the CORS rules, which answer OPTIONS for /v1 only.
 */
export function playgroundRoutes(config: Config, builtDir = BUILT_DIR): Middleware<ApiState> {
  const loaded = new Map<string, Buffer>();
  const settings = { temporalUiUrl: config.temporalUiUrl ?? null, namespace: config.temporal.namespace };
  /** A built file, read once; 404 where the page was never built (`npm run build:tools` builds none). */
  const load = async (file: string): Promise<Buffer> => {
    let body = loaded.get(file);
    if (!body) {
      body = await readFile(path.join(builtDir, file)).catch((err: NodeJS.ErrnoException) => {
        if (err.code === 'ENOENT') throw new ServiceError('not_found', `the playground is not built: ${err.path}`);
        throw err;
      });
      loaded.set(file, body);
    }
    return body;
  };
  return async (ctx, next) => {
    const served = FILES[ctx.path];
    if (!served && ctx.path !== SETTINGS_PATH) return next();
    // The launcher names the playground only where this is not 404 (src/stack/untilServing.ts).
    const body = served ? await load(served.file) : undefined;
    if (ctx.method === 'OPTIONS') {
      ctx.set('allow', 'GET, HEAD, OPTIONS');
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD') throw new ServiceError('method_not_allowed');
    ctx.set('content-security-policy', PLAYGROUND_CSP);
    ctx.set('x-content-type-options', 'nosniff');
    ctx.set('referrer-policy', 'no-referrer');
    // A rebuilt page restarts the API, but a browser would keep the old script without this.
    ctx.set('cache-control', 'no-cache');
    if (!served) {
      ctx.body = settings;
      return;
    }
    ctx.type = served.type;
    ctx.body = body;
  };
}
