import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { embeddedStoreUrl, startEmbeddedStore } from '../../src/billing/embeddedStore';
import { Store } from '../../src/billing/store';
import type { Child } from '../../src/stack/children';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { projectRoot } from '../support/localStack';
import { stackEnv, startSecondApi, type SecondApi } from '../support/secondApi';

/**
 * The store out of reach while requests come: an API of its own on the shared stack's Temporal
 * and workers, billing against an embedded store this file stops. Whether the store hangs (a
 * stopped process: nothing answers) or is gone (killed), a request gets the spec's 500 within a
 * bound, and no run starts without its charge.
 */

/** What a request may wait for a store that does not answer: two statements' time limit (10 s each), and room. */
const ANSWER_BOUND_MS = 35_000;

let dir: string;
let storeProcess: Child;
let api: SecondApi;
let pages: FixtureServer;
let key: string;

const startStore = () =>
  startEmbeddedStore(dir, { onLine: () => undefined, script: path.join(projectRoot(), 'dist', 'src', 'billing') });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'webloom-outage-'));
  storeProcess = await startStore();
  const store = await Store.open(embeddedStoreUrl(dir));
  try {
    await store.createOrganization('outage-org');
    await store.grant('outage-org', 1000);
    key = (await store.createKey('outage-org')).key;
  } finally {
    await store.close();
  }
  pages = await startFixtureServer({
    '/page': html(
      '<html><head><title>Outage</title></head><body><article><h1>Outage</h1><p>A page whose extraction is billed against a store that goes away.</p></article></body></html>',
    ),
  });
  api = await startSecondApi('api on its own store', { env: stackEnv({ DATABASE_URL: embeddedStoreUrl(dir) }) });
}, 180_000);

afterAll(async () => {
  await api?.stop();
  storeProcess?.process.kill('SIGCONT');
  await storeProcess?.stop();
  await pages?.close();
  await rm(dir, { recursive: true, force: true });
});

async function extract(): Promise<{ status: number; error?: string; workflowId: string | null; ms: number }> {
  const started = Date.now();
  const response = await fetch(`${api.root}/v1/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: pages.url('/page'), effort: 'min', nocache: true }),
    signal: AbortSignal.timeout(ANSWER_BOUND_MS + 30_000),
  });
  const body = (await response.json()) as { error?: string };
  return {
    status: response.status,
    error: body.error,
    workflowId: response.headers.get('x-workflow-id'),
    ms: Date.now() - started,
  };
}

it('answers 500 within a bound while the store hangs, starting no run, and serves again once it answers', async () => {
  expect((await extract()).status).toBe(200);
  const fetched = pages.hits.get('/page');
  // At once, while the key is still remembered: the request goes as far as its charge.
  storeProcess.process.kill('SIGSTOP');
  const answer = await extract();
  storeProcess.process.kill('SIGCONT');
  expect(answer).toMatchObject({ status: 500, error: 'internal server error', workflowId: null });
  expect(answer.ms).toBeLessThan(ANSWER_BOUND_MS);
  expect(pages.hits.get('/page')).toBe(fetched);
  expect((await extract()).status).toBe(200);
}, 180_000);

it('answers 500 at once while the store is gone, starting no run, and serves again once it is back', async () => {
  storeProcess.process.kill('SIGKILL');
  await storeProcess.exited;
  const fetched = pages.hits.get('/page');
  const answer = await extract();
  expect(answer).toMatchObject({ status: 500, error: 'internal server error', workflowId: null });
  expect(answer.ms).toBeLessThan(5_000);
  expect(pages.hits.get('/page')).toBe(fetched);
  storeProcess = await startStore();
  expect((await extract()).status).toBe(200);
}, 180_000);
