import path from 'node:path';
import { spawnChild, type Child } from '../../src/stack/children';
import { apiKey } from '../support/api';
import { eventually } from '../support/eventually';
import { startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { startSecondApi, stackEnv } from '../support/secondApi';

/**
 * A fetch whose worker dies mid-attempt. The server only learns of it by the missing
 * heartbeats; without them the attempt would wait out its whole start-to-close timeout (60 s).
 * The test runs its own API and workers on their own task queues, so it knows which worker holds
 * the attempt and can kill it without harming the shared stack.
 */

const DIST = path.resolve(__dirname, '..', '..', 'dist', 'src');
/** The heartbeat timeout (10 s), the retry, a new worker's start and the download, on a loaded machine. */
const RETRIED_WITHIN_MS = 40_000;

const ARTICLE = `<!doctype html><html><head><title>Slow page</title></head><body><article><h1>Slow page</h1>
<p>${'A page that takes a few seconds to arrive, long enough to lose its worker meanwhile. '.repeat(6)}</p></article></body></html>`;

let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/slow': (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE), 4_000);
    },
  });
});
afterAll(() => fixtures.close());

it('retries a fetch whose worker died on another worker within the heartbeat timeout', async () => {
  const env = stackEnv({ TASK_QUEUE_PREFIX: 'webloom-worker-loss' });
  const quiet = { env, onLine: () => undefined };
  const worker = (name: string, roles: string) =>
    spawnChild(name, process.execPath, ['--max-semi-space-size=64', path.join(DIST, 'workers/main.js'), roles], quiet);
  const children: Child[] = [];
  try {
    children.push(worker('workflow worker', 'workflow'));
    const doomed = worker('fetch worker that dies', 'fetch');
    children.push(doomed);
    const api = await startSecondApi('api', { env });
    children.push(api.child);
    const base = api.root;
    const started = Date.now();
    const answer = fetch(`${base}/v1/extract/markdown`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: fixtures.url('/slow'), effort: 'standard', nocache: true }),
    });
    await eventually(() => fixtures.hits.get('/slow'), { what: 'the fetch of /slow to begin', timeoutMs: 30_000 });
    doomed.process.kill('SIGKILL');
    children.push(worker('fetch worker that takes over', 'fetch'));
    const response = await answer;
    const body = (await response.json()) as { content?: string; error?: string };
    expect({ status: response.status, error: body.error }).toEqual({ status: 200, error: undefined });
    expect(body.content).toContain('lose its worker meanwhile');
    expect(fixtures.hits.get('/slow')).toBe(2);
    expect(Date.now() - started).toBeLessThan(RETRIED_WITHIN_MS);
  } finally {
    await Promise.all(children.map((child) => child.stop()));
  }
}, 150_000);
