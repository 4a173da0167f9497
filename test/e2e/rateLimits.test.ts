import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import Tabstack from '@tabstack/sdk';
import { Client, Connection } from '@temporalio/client';
import { Agent, fetch as fetchFrom } from 'undici';
import { apiUrls } from '../support/api';
import { testDataConverter } from '../support/payloadKeys';
import { eventually } from '../support/eventually';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { projectRoot } from '../support/localStack';
import { pythonWithClient } from '../support/pythonClient';
import { startSecondApi, stackEnv, type SecondApi } from '../support/secondApi';

/**
 * Rate limits end to end (spec §7.1, 429): an organization's requests per minute shared by two
 * API processes, the headers, both official clients waiting out a 429, failed authentications
 * limited per address, and runs in flight per organization, with limits set by the admin command
 * while the service runs.
 */

const run = promisify(execFile);
const DIST = path.join(projectRoot(), 'dist/src');
const LIMITED_CLIENT = path.join(projectRoot(), 'test/support/python/limited_client.py');

async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(DIST, 'admin/cli.js'), ...args], { env: stackEnv() });
  return stdout;
}

/** A new organization with a key, credits and its own limits. */
async function organization(name: string, limits: string[]): Promise<string> {
  await admin('org', 'create', name);
  await admin('credits', 'grant', name, '100000');
  await admin('limits', 'set', name, ...limits);
  const { key } = JSON.parse(await admin('key', 'create', name, '--json')) as { key: string };
  return key;
}

/** An authenticated request that starts nothing: the events of a run that does not exist (404). */
const noRun = (base: string, key: string): Promise<Response> =>
  fetch(`${base}/runs/no-such-run/events`, { headers: { authorization: `Bearer ${key}` } });

const figures = (response: { headers: { get(name: string): string | null } }) => ({
  limit: Number(response.headers.get('x-ratelimit-limit')),
  remaining: Number(response.headers.get('x-ratelimit-remaining')),
  reset: Number(response.headers.get('x-ratelimit-reset')),
});

/** A site whose pages may call the second API. */
const PAGE_ORIGIN = 'https://app.example';

/** Failures are limited to this many per address on the second API. */
const AUTH_FAILURES = 3;

/** Research runs started with it wait on task queues no worker polls: in flight for as long as a test wants. */
const idleEnv = () =>
  stackEnv({
    AUTH_FAILURES_PER_MINUTE: String(AUTH_FAILURES),
    API_CORS_ORIGINS: PAGE_ORIGIN,
    TASK_QUEUE_PREFIX: 'ratelimits-idle',
    SEARXNG_URL: 'http://127.0.0.1:9/',
  });

let fixtures: FixtureServer;
let second: SecondApi;
let bases: string[];
let temporal: Client;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/page': html(
      '<html><head><title>Limited</title></head><body><article><h1>Limited</h1><p>A page read by clients that are made to wait for their turn, long enough to be the main content.</p></article></body></html>',
    ),
  });
  second = await startSecondApi('rate limits api', { env: idleEnv() });
  bases = [apiUrls()[0]!, `${second.root}/v1`];
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  temporal = new Client({
    connection,
    namespace: process.env.TEST_TEMPORAL_NAMESPACE,
    dataConverter: testDataConverter,
  });
}, 120_000);

afterAll(async () => {
  await second?.stop();
  await temporal?.connection.close();
  await fixtures?.close();
});

describe('requests per minute', () => {
  it('are counted across two API processes, told in the headers, and raised by `limits set` at once', async () => {
    const key = await organization('rl-shared', ['--per-minute', '4']);
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await noRun(bases[i % 2]!, key));
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 429]);
    expect(answers.map((answer) => figures(answer).remaining)).toEqual([3, 2, 1, 0, 0]);
    for (const answer of answers) {
      expect(figures(answer).limit).toBe(4);
      expect(figures(answer).reset).toBeGreaterThanOrEqual(1);
      expect(figures(answer).reset).toBeLessThanOrEqual(60);
    }
    const refused = answers[4]!;
    expect(await refused.json()).toEqual({ error: 'rate limit exceeded' });
    expect(refused.headers.get('retry-after')).toBe(refused.headers.get('x-ratelimit-reset'));
    expect(refused.headers.get('x-should-retry')).toBeNull();

    await admin('limits', 'set', 'rl-shared', '--per-minute', '8');
    // Limits are read again within a second on every replica.
    await new Promise((resolve) => setTimeout(resolve, 1200));
    const raised = [await noRun(bases[0]!, key), await noRun(bases[1]!, key)];
    expect(raised.map((answer) => answer.status)).toEqual([404, 404]);
    expect(raised.map(figures).map(({ limit, remaining }) => [limit, remaining])).toEqual([
      [8, 2],
      [8, 1],
    ]);
  }, 60_000);

  it('refuse Extract Markdown past the limit before its cache lookup, once a count has refused it', async () => {
    const key = await organization('rl-markdown', ['--per-minute', '2']);
    const markdown = () =>
      fetch(`${bases[0]}/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: fixtures.url('/page') }),
      });
    const lookups = async () => {
      const text = await (await fetch(`${new URL(bases[0]!).origin}/metrics`)).text();
      return [...text.matchAll(/^webloom_cache_lookups_total\{[^}]*\} (\S+)$/gm)].reduce(
        (sum, match) => sum + Number(match[1]),
        0,
      );
    };
    const counted = [];
    for (let i = 0; i < 3; i++) counted.push(await markdown());
    // A miss, a hit, and a hit refused by the statement that counts it with its charge.
    expect(counted.map((answer) => [answer.status, answer.headers.get('x-cache')])).toEqual([
      [200, 'miss'],
      [200, 'hit'],
      [429, null],
    ]);
    const before = await lookups();
    const refused = await Promise.all(Array.from({ length: 20 }, markdown));
    expect(refused.map((answer) => answer.status)).toEqual(Array(20).fill(429));
    expect(figures(refused[19]!)).toMatchObject({ limit: 2, remaining: 0 });
    expect(refused[19]!.headers.get('retry-after')).toBe(refused[19]!.headers.get('x-ratelimit-reset'));
    // Each refused at once: one a second at most is counted again (and looks the page up), where
    // all 20 were before.
    expect((await lookups()) - before).toBeLessThan(5);
  }, 60_000);

  it('make both official clients wait for Retry-After and then succeed', async () => {
    const key = await organization('rl-clients', ['--per-minute', '2']);
    const base = bases[0]!;
    const first = await noRun(base, key);
    await noRun(base, key);
    // Both clients honour a Retry-After up to 60 s; the test keeps its wait well inside that.
    const windowEnds = Date.now() + figures(first).reset * 1000;
    const statuses: number[] = [];
    const js = new Tabstack({
      apiKey: key,
      baseURL: base,
      fetch: async (url, init) => {
        const response = await fetch(url, init);
        statuses.push(response.status);
        return response;
      },
    });
    const started = Date.now();
    const [markdown, python] = await Promise.all([
      js.extract.markdown({ url: fixtures.url('/page'), effort: 'min' }),
      run(pythonWithClient(), [LIMITED_CLIENT, fixtures.url('/page')], {
        env: { ...process.env, TABSTACK_BASE_URL: base, TABSTACK_API_KEY: key },
        encoding: 'utf8',
        timeout: 100_000,
      }),
    ]);
    const waited = Date.now() - started;
    expect(statuses).toEqual([429, 200]);
    expect(markdown.content).toContain('made to wait for their turn');
    // It waited for the window to end, not its own backoff of at most a few seconds.
    expect(Date.now()).toBeGreaterThanOrEqual(windowEnds - 1000);
    expect(waited).toBeGreaterThan(5000);
    const fromPython = JSON.parse(python.stdout) as { statuses: number[]; seconds: number; content: string };
    expect(fromPython.statuses).toEqual([429, 200]);
    expect(fromPython.content).toContain('made to wait for their turn');
    expect(fromPython.seconds * 1000).toBeGreaterThan(waited - 5000);
  }, 120_000);

  it('can be read by the pages of an allowed origin, Retry-After too', async () => {
    const key = await organization('rl-pages', ['--per-minute', '1']);
    const call = () =>
      fetch(`${bases[1]}/runs/no-such-run/events`, {
        headers: { authorization: `Bearer ${key}`, origin: PAGE_ORIGIN },
      });
    await call();
    const refused = await call();
    expect(refused.status).toBe(429);
    expect(refused.headers.get('access-control-allow-origin')).toBe(PAGE_ORIGIN);
    const exposed = (refused.headers.get('access-control-expose-headers') ?? '').split(/,\s*/);
    expect(exposed).toEqual(
      expect.arrayContaining(['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']),
    );
  }, 30_000);
});

describe('failed authentications', () => {
  it('get 401 up to the limit per address, then 429 for every request from it, a good key too', async () => {
    const key = await organization('rl-auth', ['--per-minute', '1000']);
    // An address of its own on loopback, so no other test's failures count against it.
    const from = new Agent({ localAddress: '127.0.0.9' });
    const attempt = (token: string) =>
      fetchFrom(`${bases[1]}/runs/no-such-run/events`, {
        headers: { authorization: `Bearer ${token}` },
        dispatcher: from,
      });
    try {
      const guesses = [];
      for (let i = 0; i < AUTH_FAILURES + 1; i++) guesses.push(await attempt(`wl_live_guess${i}`));
      expect(guesses.map((answer) => answer.status)).toEqual([401, 401, 401, 429]);
      expect(await guesses[0]!.json()).toEqual({ error: 'invalid or missing API key' });
      expect(guesses.map((answer) => figures(answer).remaining)).toEqual([2, 1, 0, 0]);
      expect(guesses.every((answer) => figures(answer).limit === AUTH_FAILURES)).toBe(true);
      expect(await guesses[3]!.json()).toEqual({ error: 'rate limit exceeded' });
      expect(Number(guesses[3]!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // A right guess from there would stand out: it gets the same 429.
      const good = await attempt(key);
      expect(good.status).toBe(429);
      // Other addresses are not held up.
      expect((await noRun(bases[1]!, key)).status).toBe(404);
    } finally {
      await from.close();
    }
  }, 60_000);
});

describe('runs in flight', () => {
  const research = (base: string, key: string, abort: AbortController) =>
    fetch(`${base}/research`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'How do glaciers move?', mode: 'fast' }),
      signal: abort.signal,
    });
  const balance = async (org: string) =>
    (JSON.parse(await admin('credits', 'show', org, '--json')) as { balance: number }).balance;

  it('refuse a stream over the limit before charging it, and free its slot when the run ends or its API dies', async () => {
    const key = await organization('rl-streams', ['--streams', '1']);
    const aborts: AbortController[] = [];
    const open = async (base: string) => {
      const abort = new AbortController();
      aborts.push(abort);
      return research(base, key, abort);
    };
    const workflowIds: string[] = [];
    let doomed: SecondApi | undefined;
    try {
      const first = await open(bases[1]!);
      expect(first.status).toBe(200);
      workflowIds.push(first.headers.get('x-workflow-id')!);
      const charged = await balance('rl-streams');
      expect(charged).toBe(100000 - 250);

      const refused = await open(bases[1]!);
      expect(refused.status).toBe(429);
      expect(await refused.json()).toEqual({ error: 'rate limit exceeded' });
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(refused.headers.get('x-workflow-id')).toBeNull();
      expect(await balance('rl-streams')).toBe(charged);

      // The run ends (the client has long gone): its slot is free again within seconds.
      await temporal.workflow.getHandle(workflowIds[0]!).terminate('the test is done with it');
      doomed = await startSecondApi('rate limits doomed api', { env: idleEnv() });
      const next = await eventually(
        async () => {
          const answer = await open(`${doomed!.root}/v1`);
          return answer.status === 200 && answer;
        },
        { what: 'a stream slot to be free after its run ended', timeoutMs: 15_000, intervalMs: 500 },
      );
      workflowIds.push(next.headers.get('x-workflow-id')!);

      // Its API dies while the run goes on: the slot's lease runs out, so it is not lost for good.
      doomed.child.process.kill('SIGKILL');
      await doomed.child.exited;
      expect((await open(bases[1]!)).status).toBe(429);
      const after = await eventually(
        async () => {
          const answer = await open(bases[1]!);
          return answer.status === 200 && answer;
        },
        { what: 'the dead API’s stream slot to run out', timeoutMs: 45_000, intervalMs: 1000 },
      );
      workflowIds.push(after.headers.get('x-workflow-id')!);
    } finally {
      for (const abort of aborts) abort.abort();
      await doomed?.stop();
      for (const workflowId of workflowIds)
        await temporal.workflow
          .getHandle(workflowId)
          .terminate('the test is done with it')
          .catch(() => undefined);
    }
  }, 120_000);
});
