import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/stack/ports';
import { startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { FIXTURE_HOST } from '../support/localStack';
import { eventually } from '../support/eventually';
import { TEST_PAYLOAD_KEYS } from '../support/payloadKeys';

/**
 * `npm start` as the README writes it, on its own data directory and ports: a launcher killed
 * with SIGKILL takes every process of its stack with it, and a start on a port some other process
 * holds refuses, saying which, instead of taking that process for its own. Its banner comes once
 * the stack can serve, and off a terminal its children's lines stay JSON.
 *
 * @stack own
 */

const ROOT = path.resolve(__dirname, '..', '..');
/** Temporal's and the workers' graceful stop, on a loaded machine. */
const GONE_WITHIN_MS = 30_000;

let dataDir: string;
let env: NodeJS.ProcessEnv;
let fixtures: FixtureServer;
/** Resolves when a request for /hang has arrived: the page that keeps a request in flight. */
let hangAsked: () => void = () => undefined;
const launched: ChildProcess[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/page': (_, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<html><head><title>Rendered</title></head><body><h1>Rendered in Chromium</h1></body></html>'),
    // Never answered: a request held in flight when the stack is stopped.
    '/hang': () => hangAsked(),
  });
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'webloom-launcher-'));
  env = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(await freePort()),
    TEMPORAL_PORT: String(await freePort()),
    TEMPORAL_UI_PORT: String(await freePort()),
    // Free ports: a fixed one could be taken by another stack on the machine.
    WORKER_METRICS_PORT: '0',
    ALLOW_INTERNAL_HOSTS: FIXTURE_HOST,
    // Info: the API's and workers' own lines, which must reach a pipe as JSON.
    LOG_LEVEL: 'info',
    // A graceful stop longer than the test waits: what bounds it once the launcher is gone is under test.
    SHUTDOWN_GRACE_MS: '120000',
  };
});

afterAll(async () => {
  // Whatever a failed test left: each launcher ran in a process group of its own.
  for (const launcher of launched)
    try {
      process.kill(-launcher.pid!, 'SIGKILL');
    } catch {
      // The group has gone.
    }
  await fixtures?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function launch(
  command: string,
  args: string[],
  log: string,
): Promise<{ launcher: ChildProcess; output: () => string }> {
  const logDir = path.join(ROOT, 'data', 'test-logs');
  await mkdir(logDir, { recursive: true });
  const file = createWriteStream(path.join(logDir, log));
  const launcher = spawn(command, args, { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  launched.push(launcher);
  let output = '';
  for (const stream of [launcher.stdout!, launcher.stderr!])
    stream.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      file.write(chunk);
    });
  return { launcher, output: () => output };
}

/** Every process now alive, by parent, from /proc; a zombie has ended. */
async function processTree(): Promise<Map<number, { ppid: number; command: string }>> {
  const tree = new Map<number, { ppid: number; command: string }>();
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    const match = /^\d+ \((.*)\) (\S) (\d+)/s.exec(stat);
    if (match && match[2] !== 'Z') tree.set(Number(entry), { ppid: Number(match[3]), command: match[1]! });
  }
  return tree;
}

async function descendants(pid: number): Promise<Map<number, string>> {
  const tree = await processTree();
  const found = new Map<number, string>();
  const queue = [pid];
  while (queue.length > 0) {
    const parent = queue.shift()!;
    for (const [child, { ppid, command }] of tree)
      if (ppid === parent && !found.has(child)) {
        found.set(child, command);
        queue.push(child);
      }
  }
  return found;
}

/** A process by its id and whole command line, so that a failure says which of the stack's node processes stayed. */
async function described(pid: number): Promise<string> {
  const argv = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return `${pid} ${argv.split('\0').join(' ').trim()}`;
}

async function alive(pids: Iterable<number>): Promise<number[]> {
  const tree = await processTree();
  return [...pids].filter((pid) => tree.has(pid));
}

/**
 * npm is the process a user started; the launcher (node dist/src/stack/start.js) is its child. Killing
 * npm orphans the launcher, which stops the stack; killing the launcher leaves the children to
 * the signal the kernel sends them when their parent dies.
 */
it.each(['npm', 'the launcher'])(
  'takes every process of the stack with it when %s is killed',
  async (victim) => {
    const log = `launcher-killed-${victim.replace(/\W/g, '-')}.log`;
    const { launcher, output } = await launch('npm', ['start'], log);
    // npm start builds dist/ first, while other stacks (the shared one, the next file's) run from it.
    const program = path.join(ROOT, 'dist', 'src', 'workers', 'main.js');
    let looks = 0;
    let missing = 0;
    const watching = setInterval(() => {
      looks++;
      if (!existsSync(program)) missing++;
    }, 5);
    try {
      await eventually(
        () => {
          if (launcher.exitCode !== null) throw new Error(`npm start exited:\n${output()}`);
          return output().includes('webloom is running');
        },
        { what: `npm start to come up (see data/test-logs/${log})`, timeoutMs: 240_000, intervalMs: 200 },
      );
    } finally {
      clearInterval(watching);
    }
    expect({ looks: looks > 100, missing }).toEqual({ looks: true, missing: 0 });
    // Asked once, at once: the banner promises a stack that serves now, not one that will soon.
    const ready = await fetch(`http://127.0.0.1:${env.PORT}/ready`);
    expect({ status: ready.status, body: await ready.json() }).toMatchObject({ status: 200 });
    // The launcher's stdout is a pipe here: each line of the API and the workers is JSON naming its process.
    const childLines = output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { process?: string; name?: string });
    expect(childLines.filter((line) => typeof line.process !== 'string')).toEqual([]);
    expect(childLines.map((line) => line.process)).toEqual(expect.arrayContaining(['api', 'worker fetch,browser']));
    expect(output()).not.toMatch(/^\[(api|worker[^\]]*)\] \{/m);
    expect(output()).not.toContain('\u001b[');
    // The playground and MCP lines only for routes the API serves: no address that answers 404.
    const key = (await readFile(path.join(dataDir, 'dev-api-key'), 'utf8')).trim();
    const banner = output().slice(output().indexOf('webloom is running'));
    for (const [line, route] of [
      ['Playground', '/'],
      ['MCP', '/mcp'],
    ] as const) {
      const answer = await fetch(`http://127.0.0.1:${env.PORT}${route}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect({ route, named: banner.includes(line) }).toEqual({ route, named: answer.status !== 404 });
    }
    // A render, so that the browser worker's Chromium is running too.
    const rendered = await fetch(`http://127.0.0.1:${env.PORT}/v1/extract/markdown`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: fixtures.url('/page'), effort: 'max', nocache: true }),
    });
    expect(rendered.status).toBe(200);
    const stack = await descendants(launcher.pid!);
    // The launcher, Temporal, two workers, the API and Chromium's processes.
    expect([...stack.values()]).toEqual(expect.arrayContaining(['node', 'temporal', 'chromium']));
    // The first node process below npm, breadth first: npm's child, as the npm script execs it.
    const node = [...stack].find(([, command]) => command === 'node');
    if (!node) throw new Error(`npm start runs no node process: ${JSON.stringify([...stack])}`);
    if (victim === 'the launcher') {
      // A request in flight, which the API and the fetch worker would each wait SHUTDOWN_GRACE_MS for;
      // with the launcher, Temporal goes too, so neither could finish it.
      const asked = new Promise<void>((resolve) => (hangAsked = resolve));
      void fetch(`http://127.0.0.1:${env.PORT}/v1/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url: fixtures.url('/hang'), nocache: true }),
      }).catch(() => undefined);
      await asked;
    }
    const killedAt = Date.now();
    process.kill(victim === 'npm' ? launcher.pid! : node[0], 'SIGKILL');
    await eventually(
      async () => {
        const left = await alive(stack.keys());
        if (left.length > 0) throw new Error(`left: ${(await Promise.all(left.map(described))).join(', ')}`);
        return true;
      },
      {
        what: `every process of the stack to be gone after ${victim} was killed`,
        timeoutMs: GONE_WITHIN_MS,
        intervalMs: 200,
      },
    );
    console.log(`${victim} killed: all ${stack.size} processes gone ${Date.now() - killedAt} ms after`);
  },
  360_000,
);

it('refuses to start on a port another process holds, and says which', async () => {
  // The port the first test's stack had: taking it also shows that stack let it go.
  const held = net.createServer();
  await new Promise<void>((resolve, reject) => {
    held.once('error', reject);
    held.listen(Number(env.TEMPORAL_PORT), '127.0.0.1', resolve);
  });
  try {
    const { launcher, output } = await launch(
      process.execPath,
      [path.join(ROOT, 'dist/src/stack/start.js')],
      'launcher-taken-port.log',
    );
    const code = await new Promise<number | null>((resolve) => launcher.once('exit', resolve));
    expect(code).toBe(1);
    expect(output()).toContain(
      `configuration error: TEMPORAL_PORT: port ${env.TEMPORAL_PORT} (Temporal) is taken by a process this start does not own`,
    );
  } finally {
    await new Promise((resolve) => held.close(resolve));
  }
}, 120_000);

it('stops a process asked to stop while it starts, as the signal would without a handler', async () => {
  // Nothing listens on this port, so the API waits at its start for a Temporal that is not there.
  const temporalPort = await freePort();
  const api = spawn(process.execPath, [path.join(ROOT, 'dist/src/api/main.js')], {
    cwd: ROOT,
    env: {
      ...env,
      PORT: String(await freePort()),
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      API_KEYS: 'wl_test_starting:starting',
      DATABASE_URL: '',
      PAYLOAD_KEYS: TEST_PAYLOAD_KEYS,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  launched.push(api);
  let output = '';
  for (const stream of [api.stdout!, api.stderr!]) stream.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    api.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await eventually(() => output.includes('Temporal not reachable yet'), {
    what: 'the API to wait for Temporal at its start',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
  api.kill('SIGTERM');
  expect(await ended).toEqual({ code: null, signal: 'SIGTERM' });
}, 90_000);
