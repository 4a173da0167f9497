import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import Koa from 'koa';
import { errorResponses } from '../../src/api/middleware/errorResponses';
import { PLAYGROUND_CSP, playgroundRoutes } from '../../src/api/routes/playground';
import { loadConfig } from '../../src/config';
import type { ApiState } from '../../src/api/state';

/**
 * GET / and its files (src/api/routes/playground.ts), on the route alone over HTTP. The launcher
 * names the playground in its banner when OPTIONS / is not 404 (src/stack/untilServing.ts), so
 * OPTIONS must say 404 too where the page was never built (`npm run build:tools` builds none).
 */

let dir: string;
const servers: Server[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'playground-'));
});

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await rm(dir, { recursive: true, force: true });
});

async function serve(env: Record<string, string> = {}): Promise<string> {
  const app = new Koa<ApiState>();
  app.use(errorResponses());
  app.use(playgroundRoutes(loadConfig(env), dir));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

it('serves the built page with its policy, and OPTIONS says it is there', async () => {
  await writeFile(path.join(dir, 'index.html'), '<!doctype html><title>p</title>');
  const root = await serve();
  const page = await fetch(`${root}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
  expect(page.headers.get('content-security-policy')).toBe(PLAYGROUND_CSP);
  expect(page.headers.get('x-content-type-options')).toBe('nosniff');
  const options = await fetch(`${root}/`, { method: 'OPTIONS' });
  expect({ status: options.status, allow: options.headers.get('allow') }).toEqual({
    status: 204,
    allow: 'GET, HEAD, OPTIONS',
  });
  expect((await fetch(`${root}/`, { method: 'POST' })).status).toBe(405);
});

it('answers 404 to GET and OPTIONS where the page was never built', async () => {
  const root = await serve();
  expect((await fetch(`${root}/`)).status).toBe(404);
  expect((await fetch(`${root}/`, { method: 'OPTIONS' })).status).toBe(404);
});

it("tells the page the Web UI's address and the namespace, and nothing else", async () => {
  const root = await serve({ TEMPORAL_UI_URL: 'https://ui.example.org', TEMPORAL_NAMESPACE: 'webloom' });
  expect(await (await fetch(`${root}/playground/settings.json`)).json()).toEqual({
    temporalUiUrl: 'https://ui.example.org',
    namespace: 'webloom',
  });
});
