import { execFileSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import { Store } from '../../src/billing/store';
import { account, adminJson, chargeSettled, entriesByRun, ledgerSum, newOrganization } from '../support/admin';
import { eventually } from '../support/eventually';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { SLOW_PATH } from '../support/researchCorpus';
import { scriptModel, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { startSecondApi } from '../support/secondApi';
import { slowPages } from '../support/slowPages';
import { SseStream } from '../support/sseClient';

/**
 * Exactly-once charging through crashes (issue #23 §3): worker processes and an API process
 * killed with SIGKILL while runs are charged and in flight. Whatever dies, each run's ledger ends
 * with exactly one charge and at most one refund, and the balance is what the ledger adds up to.
 * One stack that can research (test/support/researchStack.ts), whose workers this file kills and
 * starts again, and whose API sweeps every 200 ms.
 */

let stack: ResearchStack;
let pages: FixtureServer;
let connection: Connection;
let temporal: Client;
/** Page ids whose fetch has reached the page server. */
const requested = new Set<string>();

beforeAll(async () => {
  [stack, pages] = await Promise.all([
    startResearchStack('crashes', { BILLING_SETTLE_INTERVAL_MS: '200' }),
    startFixtureServer(slowPages(requested)),
  ]);
  connection = await Connection.connect({ address: stack.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection, namespace: stack.env.TEMPORAL_NAMESPACE, dataConverter });
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await stack?.close();
  await pages?.close();
});

async function extract(base: string, key: string, id: string): Promise<{ status: number; workflowId: string | null }> {
  const response = await fetch(`${base}/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: `${pages.url('/slow')}?id=${id}`, effort: 'standard', nocache: true }),
  });
  await response.body?.cancel();
  return { status: response.status, workflowId: response.headers.get('x-workflow-id') };
}

/** The processes whose parent is `pid` (a browser worker's Chromium). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * Kills a worker process of the stack with SIGKILL and starts another with its roles. Its
 * Chromium, which would outlive it, is killed too.
 */
async function killWorker(roles: string): Promise<void> {
  const worker = stack.workers.get(roles)!;
  const orphans = childrenOf(worker.process.pid!);
  worker.process.kill('SIGKILL');
  await worker.exited;
  for (const pid of orphans) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone with its parent already.
    }
  }
  stack.spawnWorker(roles);
}

/**
 * Once every charge of the organization is settled: each run has one charge of its price and
 * no refund (they all completed), no other run was charged, and the balance adds up.
 */
async function expectChargedOnce(org: string, granted: number, runs: string[], price: number): Promise<void> {
  for (const run of runs)
    await eventually(() => chargeSettled(run), { what: `the settlement of ${run}`, timeoutMs: 60_000 });
  const { balance, ledger } = await account(org);
  const byRun = entriesByRun(ledger);
  expect([...byRun.keys()].sort()).toEqual([...runs].sort());
  for (const run of runs)
    expect({ run, entries: byRun.get(run)!.map((entry) => [entry.kind, entry.amount]) }).toEqual({
      run,
      entries: [['charge', -price]],
    });
  expect(balance).toBe(granted - price * runs.length);
  expect(ledgerSum(ledger)).toBe(balance);
}

describe('a run charged once', () => {
  it('Extract Markdown, when the fetch worker and the workflow worker are killed mid-run', async () => {
    const { org, key } = await newOrganization('crash-extract', 1000);
    const ids = ['e1', 'e2', 'e3'];
    const answers = ids.map((id) => extract(stack.base, key, id));
    await eventually(() => ids.every((id) => requested.has(id)), {
      what: 'every request to reach its page',
      timeoutMs: 30_000,
    });
    await killWorker('fetch,browser');
    await killWorker('workflow,model');
    const outcomes = await Promise.all(answers);
    expect(outcomes.map((outcome) => outcome.status)).toEqual([200, 200, 200]);
    await expectChargedOnce(
      org,
      1000,
      outcomes.map((outcome) => outcome.workflowId!),
      10,
    );
  }, 150_000);

  it('Research, when the workflow worker and the fetch worker are killed mid-read', async () => {
    const { org, key } = await newOrganization('crash-research', 1000);
    await scriptModel(
      volcanoScript({
        research_plan: [
          {
            content: JSON.stringify({
              objective: 'Explain how volcanic unrest in Iceland is watched.',
              plan: 'Monitoring first.',
              complexity: 'simple',
              questions: ['How is unrest watched?'],
              queries: ['monitoring stations seismometers', 'Iceland volcanoes eruption'],
            }),
          },
        ],
      }),
    );
    const slowHits = stack.corpus.hits.get(SLOW_PATH) ?? 0;
    const stream = await SseStream.open(`${stack.base}/research`, {
      key,
      method: 'POST',
      body: { query: 'How is volcanic unrest in Iceland watched?', nocache: true },
    });
    const workflowId = stream.response.headers.get('x-workflow-id')!;
    await eventually(() => (stack.corpus.hits.get(SLOW_PATH) ?? 0) > slowHits, {
      what: 'the slow page to be asked for',
      timeoutMs: 60_000,
    });
    await killWorker('workflow,model');
    await killWorker('fetch,browser');
    await stream.finished;
    expect(stream.events.at(-1)?.event).toBe('complete');
    await expectChargedOnce(org, 1000, [workflowId], 250);
  }, 150_000);

  it('Extract Markdown, when the API is killed while the request waits: the run finishes, another API settles it', async () => {
    const { org, key } = await newOrganization('crash-api', 1000);
    const doomed = await startSecondApi('crashes api that dies', { env: stack.env });
    const answer = extract(`${doomed.root}/v1`, key, 'a1').catch((err: unknown) => err);
    await eventually(() => requested.has('a1'), { what: 'the request to reach its page', timeoutMs: 30_000 });
    doomed.child.process.kill('SIGKILL');
    await doomed.child.exited;
    // The connection died with the API: no answer at all.
    expect(String(await answer)).toMatch(/fetch failed/);
    // The caller never saw the run's id: the ledger names it.
    const charged = (await account(org)).ledger.filter((entry) => entry.kind === 'charge');
    expect(charged).toHaveLength(1);
    const workflowId = charged[0]!.runKey!;
    expect(await temporal.workflow.getHandle(workflowId).result()).toMatchObject({
      content: expect.stringContaining('Paragraph of slow page a1,'),
    });
    await expectChargedOnce(org, 1000, [workflowId], 10);
  }, 120_000);
});

describe('a block of cache hits', () => {
  it('is refunded whole when the API holding it is killed: the hits it answered are free, none is charged twice', async () => {
    const { org, key } = await newOrganization('crash-block', 100_000);
    const store = await Store.open(stack.env.DATABASE_URL!, 1);
    // A page that answers at once: the stack's cache keeps entries 3 s, so a miss now and then is a quick run.
    const fast = await startFixtureServer({
      '/fast': html(
        '<html><body><article><h1>Fast</h1><p>A page answered at once, then from the cache.</p></article></body></html>',
      ),
    });
    const hit = async (base: string) => {
      const response = await fetch(`${base}/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: fast.url('/fast'), effort: 'min' }),
      });
      await response.arrayBuffer();
      return response.headers.get('x-cache') === 'hit';
    };
    const blockEntries = async () =>
      (await store.ledger(org, 5000)).filter((entry) => entry.runKey?.includes('/cache-hit-block/'));
    try {
      expect(await hit(stack.base)).toBe(false);
      const doomed = await startSecondApi('crashes api holding a block', { env: stack.env });
      let hits = 0;
      // More than 64 hits a second through one process: it takes a block.
      while ((await blockEntries()).length === 0)
        for (let i = 0; i < 100; i++) if (await hit(`${doomed.root}/v1`)) hits++;
      doomed.child.process.kill('SIGKILL');
      await doomed.child.exited;
      // The block the process held when it died is refunded whole by the sweep, once; any it had
      // used up and given back before stays charged for the hits it answered.
      const sweptBlock = async () => {
        const entries = await blockEntries();
        return entries.find((entry) => entry.kind === 'refund' && entry.note?.includes('process holding this block'));
      };
      await eventually(async () => (await sweptBlock()) !== undefined, {
        what: "the sweep to refund the dead process's block",
        timeoutMs: 60_000,
        intervalMs: 500,
      });
      const swept = (await sweptBlock())!;
      const entries = await blockEntries();
      expect(
        entries
          .filter((entry) => entry.runKey === swept.runKey)
          .map((entry) => entry.amount)
          .sort(),
      ).toEqual([-swept.amount, swept.amount]);
      const { rows } = await store.pool.query(
        `SELECT count(*)::int AS open FROM ledger WHERE organization = $1 AND kind = 'charge' AND settled_at IS NULL`,
        [org],
      );
      expect(rows[0].open).toBe(0);
      // Fewer hits charged than answered (those of the dead block are free), and the balance is what the ledger says.
      const ledger = await store.ledger(org, 5000);
      const hitsCharged = -ledger
        .filter((entry) => entry.operation === 'cache-hit')
        .reduce((sum, entry) => sum + entry.amount, 0);
      expect(hitsCharged).toBeGreaterThanOrEqual(15);
      expect(hitsCharged).toBeLessThan(hits);
      const { balance } = await store.organization(org);
      expect(ledger.reduce((sum, entry) => sum + entry.amount, 0)).toBe(balance);
    } finally {
      await store.close();
      await fast.close();
    }
  }, 120_000);
});

describe('the store restarted', () => {
  // The dev stack's embedded store has no supervisor to start it again; e2e/crashRecovery kills
  // the one `npm start` runs, and its supervisor does.
  const onCluster = process.env.TEST_TOPOLOGY === 'cluster';
  (onCluster ? it : it.skip)(
    "keeps keys, balances and the ledger across a restart of the cluster's PostgreSQL",
    async () => {
      const { org, key } = await newOrganization('restart-pg', 1000);
      const first = await extract(stack.base, key, 'r1');
      expect(first.status).toBe(200);
      await eventually(() => chargeSettled(first.workflowId!), { what: 'the first settlement', timeoutMs: 30_000 });
      const before = await account(org);
      const keys = await adminJson<unknown[]>('key', 'list', org);
      const pid = (JSON.parse(process.env.TEST_PIDS ?? '{}') as Record<string, number>).postgres!;
      // Its fast shutdown, as a restart by an operator: the cluster's supervisor starts it again.
      process.kill(pid, 'SIGINT');
      await eventually(
        () => {
          try {
            process.kill(pid, 0);
            return false;
          } catch {
            return true;
          }
        },
        { what: 'PostgreSQL to stop', timeoutMs: 30_000 },
      );
      await eventually(async () => (await account(org)).balance === before.balance, {
        what: 'the store to answer again',
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      await eventually(async () => (await fetch(`${new URL(stack.base).origin}/ready`)).ok, {
        what: 'the API to be ready again (Temporal keeps its data in the same PostgreSQL)',
        timeoutMs: 120_000,
        intervalMs: 500,
      });
      expect(await adminJson('key', 'list', org)).toEqual(keys);
      expect((await account(org)).ledger).toEqual(before.ledger);
      const second = await extract(stack.base, key, 'r2');
      expect(second.status).toBe(200);
      await expectChargedOnce(org, 1000, [first.workflowId!, second.workflowId!], 10);
    },
    300_000,
  );
});
