import { Pool } from 'pg';
import { FIXTURE_HOST } from '../support/localStack';
import { startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { eventually } from '../support/eventually';
import { holdPort, startNpmStart, type NpmStart } from '../support/npmStart';
import { slowPages } from '../support/slowPages';

/**
 * `npm start` as a user runs it (its own data directory and ports, apart from the shared test
 * stack): each kind of process is killed with SIGKILL while requests wait on it, and every
 * request, those in flight and those sent during the outage, still gets its page. Last, the
 * embedded store is killed too, and the ledger shows every request charged once.
 *
 * @stack own
 */

const IN_FLIGHT = 4;
const SENT_DURING_OUTAGE = 2;
const API_KEY = 'crash-test-key-0123456789';

let fixtures: FixtureServer;
let stack: NpmStart;
/** Page ids whose fetch has reached the fixture server. */
const requested = new Set<string>();
let nextId = 0;
/** Requests sent to the stack's API, each of which should be charged once. */
let sent = 0;

beforeAll(async () => {
  fixtures = await startFixtureServer(slowPages(requested));
  stack = await startNpmStart('crash-recovery', {
    API_KEYS: `${API_KEY}:crash-org`,
    ALLOW_INTERNAL_HOSTS: FIXTURE_HOST,
  });
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  await fixtures?.close();
}, 60_000);

interface Outcome {
  id: string;
  status: number | string;
  content: string;
}

/** Every other request has effort min, whose one fetch attempt must survive its worker too. */
async function extract(id: string, index: number): Promise<Outcome> {
  sent++;
  try {
    const res = await fetch(`${stack.origin}/v1/extract/markdown`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        url: `http://${FIXTURE_HOST}:${fixtures.port}/slow?id=${id}`,
        metadata: true,
        effort: index % 2 ? 'min' : 'standard',
      }),
    });
    const text = await res.text();
    return { id, status: res.status, content: res.ok ? (JSON.parse(text) as { content: string }).content : text };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause;
    return { id, status: cause?.code ?? String(err), content: '' };
  }
}

async function killMidRequest(command: RegExp, whileDown: () => Promise<void> = async () => undefined): Promise<void> {
  const pid = await stack.childPid(command);
  const ids = Array.from({ length: IN_FLIGHT + SENT_DURING_OUTAGE }, () => `p${++nextId}`);
  const inFlight = ids.slice(0, IN_FLIGHT).map(extract);
  await eventually(() => ids.slice(0, IN_FLIGHT).every((id) => requested.has(id)), {
    what: 'every request to reach the page',
    timeoutMs: 30_000,
  });
  process.kill(pid, 'SIGKILL');
  const sentDuringOutage = ids.slice(IN_FLIGHT).map(extract);
  await whileDown();
  const outcomes = await Promise.all([...inFlight, ...sentDuringOutage]);
  expect(outcomes.map(({ id, status }) => ({ id, status }))).toEqual(ids.map((id) => ({ id, status: 200 })));
  for (const { id, content } of outcomes) expect(content).toContain(`Paragraph of slow page ${id},`);
  const restarted = await stack.childPid(command);
  expect(restarted).not.toBe(pid);
}

describe('a process of the npm start stack killed mid-request', () => {
  it.each([
    ['the fetch and browser worker', /workers\/main\.js fetch,browser/],
    ['the workflow worker', /workers\/main\.js workflow/],
    ['the Temporal dev server', /server start-dev/],
  ])('answers every request when %s is killed', async (_name, command) => killMidRequest(command), 150_000);

  it('starts a killed API again: the requests it held are lost, the next ones answered', async () => {
    const pid = await stack.childPid(/api\/main\.js/);
    process.kill(pid, 'SIGKILL');
    await stack.apiUp(30_000);
    const id = `p${++nextId}`;
    const outcome = await extract(id, 0);
    expect(outcome.status).toBe(200);
    expect(outcome.content).toContain(`Paragraph of slow page ${id},`);
    expect(await stack.childPid(/api\/main\.js/)).not.toBe(pid);
  }, 60_000);

  it('answers every request when the dev server stays down longer than the Temporal client retries', async () => {
    // The client gives up on a call after about 20 s of retries; the port is held for 25 s,
    // and the supervisor's next try after that comes about 32 s after the kill.
    await killMidRequest(/server start-dev/, () => holdPort(stack.temporalPort, 25_000));
  }, 150_000);
});

describe('the ledger of the npm start stack', () => {
  it('keeps keys, balances and the ledger across a kill of the embedded store, with every request charged once', async () => {
    type Shown = { balance: number; ledger: { id: number; kind: string; amount: number }[] };
    const before = await stack.adminJson<Shown>('credits', 'show', 'crash-org');
    const keys = await stack.adminJson<unknown[]>('key', 'list', 'crash-org');
    const pid = await stack.childPid(/embeddedStoreMain\.js/);
    process.kill(pid, 'SIGKILL');
    await eventually(
      async () => (await stack.childPid(/embeddedStoreMain\.js/)) !== pid && stack.adminJson('org', 'list'),
      {
        what: 'the store to be started again and answer',
        timeoutMs: 60_000,
        intervalMs: 200,
      },
    );
    expect(await stack.adminJson('key', 'list', 'crash-org')).toEqual(keys);
    const after = await stack.adminJson<Shown>('credits', 'show', 'crash-org');
    expect(after.balance).toBe(before.balance);
    expect(after.ledger).toEqual(before.ledger);
    const id = `p${++nextId}`;
    expect((await extract(id, 0)).status).toBe(200);

    // Every request of this file, through every kill above, charged once and none refunded.
    const pool = new Pool({ connectionString: stack.storeUrl, max: 1 });
    try {
      const { rows } = await pool.query<{ kind: string; runs: string; entries: string; amount: string }>(
        `SELECT kind, count(DISTINCT run_key) AS runs, count(*) AS entries, sum(amount) AS amount
         FROM ledger WHERE organization = 'crash-org' GROUP BY kind ORDER BY kind`,
      );
      expect(rows.map((row) => [row.kind, Number(row.runs), Number(row.entries), Number(row.amount)])).toEqual([
        ['charge', sent, sent, -10 * sent],
        ['grant', 0, 1, 1_000_000],
      ]);
    } finally {
      await pool.end();
    }
    expect((await stack.adminJson<Shown>('credits', 'show', 'crash-org')).balance).toBe(1_000_000 - 10 * sent);
  }, 120_000);
});
