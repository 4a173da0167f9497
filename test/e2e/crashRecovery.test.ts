import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { embeddedStoreUrl } from '../../src/billing/embeddedStore';
import { freePort } from '../../src/stack/devServer';
import { FIXTURE_HOST } from '../support/localStack';
import { startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { eventually } from '../support/eventually';

/**
 * `npm start` as a user runs it (its own data directory and ports, apart from the shared test
 * stack): each kind of process is killed with SIGKILL while requests wait on it, and every
 * request, those in flight and those sent during the outage, still gets its page. Last, the
 * embedded store is killed too, and the ledger shows every request charged once.
 *
 * @stack own
 */

/** Long enough that the kill lands while every request is inside its fetch; within effort min's 5 s. */
const PAGE_DELAY_MS = 3_000;
const IN_FLIGHT = 4;
const SENT_DURING_OUTAGE = 2;
const API_KEY = 'crash-test-key-0123456789';

let fixtures: FixtureServer;
let launcher: ChildProcess;
let baseUrl: string;
let temporalPort: number;
let dataDir: string;
/** Page ids whose fetch has reached the fixture server. */
const requested = new Set<string>();
let nextId = 0;
/** Requests sent to the stack's API, each of which should be charged once. */
let sent = 0;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/slow': (req, res) => {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
      requested.add(id);
      const body = `<html><head><title>Slow page ${id}</title></head><body><article><h1>Slow page ${id}</h1>
<p>${`Paragraph of slow page ${id}, served only after the server has thought it over for a while. `.repeat(6)}</p>
</article></body></html>`;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), PAGE_DELAY_MS);
    },
  });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'webloom-crash-'));
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  temporalPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(await freePort()),
    // Free ports: a fixed one could be taken by another stack on the machine.
    WORKER_METRICS_PORT: '0',
    API_KEYS: `${API_KEY}:crash-org`,
    ALLOW_INTERNAL_HOSTS: FIXTURE_HOST,
    LOG_LEVEL: 'warn',
  };
  const logDir = path.resolve(__dirname, '..', '..', 'data', 'test-logs');
  await mkdir(logDir, { recursive: true });
  const log = createWriteStream(path.join(logDir, 'crash-recovery-stack.log'));
  // Its own process group, so a launcher that fails to stop cannot leave its children behind.
  launcher = spawn(process.execPath, [path.resolve(__dirname, '..', '..', 'dist/src/stack/start.js')], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launcher.stdout!.pipe(log);
  launcher.stderr!.pipe(log);
  await apiUp(90_000);
}, 120_000);

afterAll(async () => {
  if (launcher?.pid && launcher.exitCode === null && launcher.signalCode === null) {
    const exited = new Promise((resolve) => launcher.once('exit', resolve));
    launcher.kill('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 30_000)))]);
    clearTimeout(timer);
  }
  if (launcher?.pid) {
    try {
      process.kill(-launcher.pid, 'SIGKILL');
    } catch {
      // The whole group has already gone.
    }
  }
  await fixtures?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
}, 60_000);

async function apiUp(timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      if (launcher.exitCode !== null) throw new Error(`npm start exited with code ${launcher.exitCode}`);
      return (await fetch(`${baseUrl}/healthz`)).ok;
    },
    {
      what: 'the API of the npm start stack (see data/test-logs/crash-recovery-stack.log)',
      timeoutMs,
      intervalMs: 100,
    },
  );
}

/** The pid of the launcher's child whose command line matches. */
async function childPid(command: RegExp): Promise<number> {
  const { stdout } = await promisify(execFile)('ps', ['-o', 'pid=,args=', '--ppid', String(launcher.pid)]);
  const line = stdout.split('\n').find((l) => command.test(l));
  if (!line) throw new Error(`no child of the launcher runs ${command}; its children:\n${stdout}`);
  return Number(line.trim().split(/\s+/)[0]);
}

interface Outcome {
  id: string;
  status: number | string;
  content: string;
}

/** Every other request has effort min, whose one fetch attempt must survive its worker too. */
async function extract(id: string, index: number): Promise<Outcome> {
  sent++;
  try {
    const res = await fetch(`${baseUrl}/v1/extract/markdown`, {
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

/**
 * Takes the dev server's port the moment it is free, refusing every connection, so the restarted
 * server cannot listen until `holdMs` have passed.
 */
async function holdPort(port: number, holdMs: number): Promise<void> {
  const server = await eventually(
    async () => {
      const candidate = net.createServer((socket) => socket.destroy());
      const bound = await new Promise<boolean>((resolve) => {
        candidate.once('error', () => resolve(false));
        candidate.listen(port, '127.0.0.1', () => resolve(true));
      });
      return bound && candidate;
    },
    { what: `port ${port} to come free after the kill`, timeoutMs: 400, intervalMs: 10 },
  );
  // Holding the port for a while is the point: the outage the requests must outlast.
  await new Promise((resolve) => setTimeout(resolve, holdMs));
  await new Promise((resolve) => server.close(resolve));
}

async function killMidRequest(command: RegExp, whileDown: () => Promise<void> = async () => undefined): Promise<void> {
  const pid = await childPid(command);
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
  const restarted = await childPid(command);
  expect(restarted).not.toBe(pid);
}

describe('a process of the npm start stack killed mid-request', () => {
  it.each([
    ['the fetch and browser worker', /workers\/main\.js fetch,browser/],
    ['the workflow worker', /workers\/main\.js workflow/],
    ['the Temporal dev server', /server start-dev/],
  ])('answers every request when %s is killed', async (_name, command) => killMidRequest(command), 150_000);

  it('starts a killed API again: the requests it held are lost, the next ones answered', async () => {
    const pid = await childPid(/api\/main\.js/);
    process.kill(pid, 'SIGKILL');
    await apiUp(30_000);
    const id = `p${++nextId}`;
    const outcome = await extract(id, 0);
    expect(outcome.status).toBe(200);
    expect(outcome.content).toContain(`Paragraph of slow page ${id},`);
    expect(await childPid(/api\/main\.js/)).not.toBe(pid);
  }, 60_000);

  it('answers every request when the dev server stays down longer than the Temporal client retries', async () => {
    // The client gives up on a call after about 20 s of retries; the port is held for 25 s,
    // and the supervisor's next try after that comes about 32 s after the kill.
    await killMidRequest(/server start-dev/, () => holdPort(temporalPort, 25_000));
  }, 150_000);
});

/** The admin command against the stack's store, as its operator runs it while it runs. */
async function adminJson<T>(...args: string[]): Promise<T> {
  const cli = path.resolve(__dirname, '..', '..', 'dist/src/admin/cli.js');
  const { stdout } = await promisify(execFile)(process.execPath, [cli, ...args, '--json'], {
    env: { ...process.env, DATA_DIR: dataDir },
  });
  return JSON.parse(stdout) as T;
}

describe('the ledger of the npm start stack', () => {
  it('keeps keys, balances and the ledger across a kill of the embedded store, with every request charged once', async () => {
    type Shown = { balance: number; ledger: { id: number; kind: string; amount: number }[] };
    const before = await adminJson<Shown>('credits', 'show', 'crash-org');
    const keys = await adminJson<unknown[]>('key', 'list', 'crash-org');
    const pid = await childPid(/embeddedStoreMain\.js/);
    process.kill(pid, 'SIGKILL');
    await eventually(async () => (await childPid(/embeddedStoreMain\.js/)) !== pid && adminJson('org', 'list'), {
      what: 'the store to be started again and answer',
      timeoutMs: 60_000,
      intervalMs: 200,
    });
    expect(await adminJson('key', 'list', 'crash-org')).toEqual(keys);
    const after = await adminJson<Shown>('credits', 'show', 'crash-org');
    expect(after.balance).toBe(before.balance);
    expect(after.ledger).toEqual(before.ledger);
    const id = `p${++nextId}`;
    expect((await extract(id, 0)).status).toBe(200);

    // Every request of this file, through every kill above, charged once and none refunded.
    const pool = new Pool({ connectionString: embeddedStoreUrl(path.join(dataDir, 'store')), max: 1 });
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
    expect((await adminJson<Shown>('credits', 'show', 'crash-org')).balance).toBe(1_000_000 - 10 * sent);
  }, 120_000);
});
