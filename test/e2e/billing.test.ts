import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { freePort } from '../../src/stack/ports';
import { Store } from '../../src/billing/store';
import { CREDITS } from '../../src/temporal/searchAttributes';
import { apiUrls } from '../support/api';
import { testDataConverter } from '../support/payloadKeys';
import { eventually } from '../support/eventually';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { FIXTURE_HOST, projectRoot } from '../support/localStack';

/**
 * Organizations, keys and credits end to end: the admin command against the stack's store while
 * it runs, and two API processes sharing it.
 */

const run = promisify(execFile);
const DIST = path.join(projectRoot(), 'dist/src');
const stackEnv = JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv;

async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [path.join(DIST, 'admin/cli.js'), ...args], { env: stackEnv });
  return stdout;
}

const adminJson = async <T>(...args: string[]): Promise<T> => JSON.parse(await admin(...args, '--json')) as T;

async function extract(
  base: string,
  key: string,
  url: string,
): Promise<{ status: number; body: { error?: string }; workflowId: string | null }> {
  const response = await fetch(`${base}/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, effort: 'min', nocache: true }),
  });
  return {
    status: response.status,
    body: (await response.json()) as { error?: string },
    workflowId: response.headers.get('x-workflow-id'),
  };
}

let fixtures: FixtureServer;
let secondApi: Child;
let bases: string[];
let temporal: Client;
let closedPort: number;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/page': html(
      '<html><head><title>Billed</title></head><body><article><h1>Billed</h1><p>A page whose extraction costs credits, long enough to be the main content.</p></article></body></html>',
    ),
    '/missing': html('<html><body>gone</body></html>', 'text/html', 404),
  });
  closedPort = await freePort(FIXTURE_HOST);
  const port = await freePort();
  secondApi = spawnChild('second api', process.execPath, [path.join(DIST, 'api/main.js')], {
    env: { ...stackEnv, PORT: String(port) },
    onLine: () => undefined,
  });
  const second = `http://127.0.0.1:${port}`;
  await waitUntil('the second API', secondApi, async () => (await fetch(`${second}/healthz`)).ok, 60_000);
  bases = [apiUrls()[0]!, `${second}/v1`];
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS! });
  temporal = new Client({
    connection,
    namespace: process.env.TEST_TEMPORAL_NAMESPACE,
    dataConverter: testDataConverter,
  });
}, 120_000);

afterAll(async () => {
  await secondApi?.stop();
  await temporal?.connection.close();
  await fixtures?.close();
});

describe('the admin command', () => {
  it('creates an organization and a key that works at once, and a revoked key gets 401 on both replicas within a second', async () => {
    expect(await admin('org', 'create', 'admin-org')).toContain('created organization admin-org');
    const created = await adminJson<{ key: string; org: string; id: string }>('key', 'create', 'admin-org');
    expect(created.key).toMatch(/^wl_live_/);
    expect(created.org).toBe('admin-org');
    expect(await admin('credits', 'grant', 'admin-org', '25')).toContain('admin-org now has 25 credits');
    const listed = await adminJson<{ id: string; hint: string }[]>('key', 'list', 'admin-org');
    expect(listed).toEqual([expect.objectContaining({ id: created.id, hint: created.key.slice(0, 12) })]);
    expect(JSON.stringify(listed)).not.toContain(created.key);
    for (const base of bases) expect((await extract(base, created.key, fixtures.url('/page'))).status).toBe(200);
    await admin('key', 'revoke', created.id);
    const revokedAt = Date.now();
    // The promise is 401 within a second on every replica: the test waits that second, no less.
    await new Promise((resolve) => setTimeout(resolve, 1000 - (Date.now() - revokedAt)));
    for (const base of bases) expect((await extract(base, created.key, fixtures.url('/page'))).status).toBe(401);
    const shown = await adminJson<{ balance: number; ledger: { kind: string; amount: number }[] }>(
      'credits',
      'show',
      'admin-org',
    );
    expect(shown.balance).toBe(5);
    expect(shown.ledger.map((entry) => [entry.kind, entry.amount])).toEqual([
      ['charge', -10],
      ['charge', -10],
      ['grant', 25],
    ]);
    const limited = await adminJson<{ requestsPerMinute: number; concurrentStreams: number }>(
      'limits',
      'set',
      'admin-org',
      '--per-minute',
      '30',
      '--streams',
      '2',
    );
    expect(limited).toMatchObject({ requestsPerMinute: 30, concurrentStreams: 2 });
    await expect(admin('key', 'create', 'no-such-org')).rejects.toMatchObject({ code: 1 });
  }, 120_000);
});

describe('credits', () => {
  it('lets 100 concurrent requests on two replicas against a balance worth 10 give 10 answers and 90 x 402', async () => {
    await admin('org', 'create', 'race-org');
    const { key } = await adminJson<{ key: string }>('key', 'create', 'race-org');
    await admin('credits', 'grant', 'race-org', '100');
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => extract(bases[i % 2]!, key, fixtures.url('/page'))),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
    const refused = answers.filter((answer) => answer.status === 402);
    expect(refused).toHaveLength(90);
    expect(new Set(refused.map((answer) => answer.body.error))).toEqual(new Set(['insufficient credits']));
    // A refused request starts no run.
    expect(refused.every((answer) => answer.workflowId === null)).toBe(true);
    expect((await adminJson<{ balance: number }>('credits', 'show', 'race-org')).balance).toBe(0);
  }, 300_000);

  it("answers a busy organization's cache hits from blocks on two replicas and charges exactly the hits answered", async () => {
    await admin('org', 'create', 'busy-org');
    const { key } = await adminJson<{ key: string }>('key', 'create', 'busy-org');
    await admin('credits', 'grant', 'busy-org', '100000');
    const url = fixtures.url('/page');
    const extractCached = async (base: string) => {
      const response = await fetch(`${base}/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, effort: 'min' }),
      });
      await response.arrayBuffer();
      return {
        status: response.status,
        hit: response.headers.get('x-cache') === 'hit',
        remaining: response.headers.get('x-ratelimit-remaining'),
      };
    };
    const answers: { status: number; hit: boolean; remaining: string | null }[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async (_, worker) => {
        while (next++ < 600) answers.push(await extractCached(bases[worker % 2]!));
      }),
    );
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(600);
    expect(answers.every((answer) => Number(answer.remaining) > 0)).toBe(true);
    // The first few, on either replica, may come before the page is in the cache: runs, paid as runs.
    const hits = answers.filter((answer) => answer.hit).length;
    expect(hits).toBeGreaterThan(500);
    const store = await Store.open(stackEnv.DATABASE_URL!, 1);
    try {
      const spent = async (operation: string) =>
        -(await store.ledger('busy-org', 5000))
          .filter((entry) => entry.operation === operation)
          .reduce((sum, entry) => sum + entry.amount, 0);
      // Blocks are given back within a second and a half of their last hit, the unused hits refunded.
      await eventually(async () => (await spent('cache-hit')) === hits, {
        what: `the hits' charges to come to exactly the ${hits} hits answered`,
        timeoutMs: 15_000,
        intervalMs: 250,
      });
      expect(await spent('extract-markdown')).toBe(10 * (600 - hits));
      expect((await store.organization('busy-org')).balance).toBe(100000 - hits - 10 * (600 - hits));
      const blocks = (await store.ledger('busy-org', 5000)).filter((entry) =>
        entry.runKey?.includes('/cache-hit-block/'),
      );
      expect(blocks.some((entry) => entry.kind === 'charge')).toBe(true);
    } finally {
      await store.close();
    }
  }, 120_000);

  it('records what a run cost in its memo and search attributes, and counts it in /metrics', async () => {
    await admin('org', 'create', 'memo-org');
    const { key } = await adminJson<{ key: string }>('key', 'create', 'memo-org');
    await admin('credits', 'grant', 'memo-org', '10');
    const answer = await extract(bases[0]!, key, fixtures.url('/page'));
    expect(answer.status).toBe(200);
    const described = await temporal.workflow.getHandle(answer.workflowId!).describe();
    expect(await described.memo).toMatchObject({ credits: 10 });
    expect(described.typedSearchAttributes.get(CREDITS)).toBe(10);
    const metrics = await (await fetch(`${new URL(bases[0]!).origin}/metrics`)).text();
    expect(metrics).toMatch(/webloom_credits_charged_total\{operation="extract-markdown"\} \d+/);
  }, 120_000);

  /** The refund table (README, Credits): one row each. */
  it.each([
    ['a run that completed', '/page', 200, false],
    ['a page that is not there (404)', '/missing', 500, false],
    ['a fetch that failed through no fault of the caller (connection refused)', 'closed', 500, true],
  ])(
    'settles %s',
    async (_, target, status, refunded) => {
      const org = `refund-${Math.random().toString(36).slice(2, 8)}`;
      await admin('org', 'create', org);
      const { key } = await adminJson<{ key: string }>('key', 'create', org);
      await admin('credits', 'grant', org, '10');
      const url = target === 'closed' ? `http://${FIXTURE_HOST}:${closedPort}/page` : fixtures.url(target);
      const answer = await extract(bases[1]!, key, url);
      expect(answer.status).toBe(status);
      type Entry = { kind: string; amount: number; note: string | null };
      const ledger = async () => (await adminJson<{ ledger: Entry[] }>('credits', 'show', org)).ledger;
      if (refunded) {
        await eventually(async () => (await ledger()).some((entry) => entry.kind === 'refund'), {
          what: `the refund of ${org}'s charge`,
          timeoutMs: 20_000,
          intervalMs: 250,
        });
      }
      // Settled by the API that answered; a second settlement (its sweep, the other replica's) finds nothing.
      await new Promise((resolve) => setTimeout(resolve, 2000));
      const entries = await ledger();
      expect(entries.filter((entry) => entry.kind === 'refund').map((entry) => entry.amount)).toEqual(
        refunded ? [10] : [],
      );
      expect((await adminJson<{ balance: number }>('credits', 'show', org)).balance).toBe(refunded ? 10 : 0);
    },
    120_000,
  );
});
