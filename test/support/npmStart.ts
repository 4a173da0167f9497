import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { embeddedStoreUrl } from '../../src/billing/embeddedStore';
import { freePort } from '../../src/stack/ports';
import { eventually } from './eventually';
import { projectRoot } from './localStack';

/**
 * `npm start` as a user runs it (dist/src/stack/start.js), on its own data directory and free
 * ports, apart from the shared test stack: its supervisor starts again whatever the crash and
 * chaos tests kill. Its output goes to data/test-logs/<name>-stack.log.
 */
export interface NpmStart {
  /** The API's origin, `http://127.0.0.1:<port>`; the operations are under `/v1`. */
  origin: string;
  temporalPort: number;
  dataDir: string;
  /** The embedded store's connection string, for reading the ledger directly. */
  storeUrl: string;
  /** Waits until the API answers /healthz (again). */
  apiUp(timeoutMs: number): Promise<void>;
  /** The pid of the launcher's child whose command line matches. */
  childPid(command: RegExp): Promise<number>;
  /** The admin command against this stack's store, with `--json`. */
  adminJson<T>(...args: string[]): Promise<T>;
  stop(): Promise<void>;
}

const run = promisify(execFile);

export async function startNpmStart(name: string, extraEnv: NodeJS.ProcessEnv): Promise<NpmStart> {
  const root = projectRoot();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), `webloom-${name}-`));
  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const temporalPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    TEMPORAL_PORT: String(temporalPort),
    TEMPORAL_UI_PORT: String(await freePort()),
    // Free ports: a fixed one could be taken by another stack on the machine.
    WORKER_METRICS_PORT: '0',
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  const logDir = path.join(root, 'data', 'test-logs');
  await mkdir(logDir, { recursive: true });
  const logFile = path.join(logDir, `${name}-stack.log`);
  const log = createWriteStream(logFile);
  // Its own process group, so a launcher that fails to stop cannot leave its children behind.
  const launcher: ChildProcess = spawn(process.execPath, [path.join(root, 'dist/src/stack/start.js')], {
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Neither stream ends the log: the other's last lines (a failed start's error) would be lost.
  launcher.stdout!.pipe(log, { end: false });
  launcher.stderr!.pipe(log, { end: false });
  /** Once the launcher's output has been read to its end and written. */
  const outputDone = new Promise<void>((resolve) => log.once('close', () => resolve()));
  launcher.once('close', () => log.end());

  const apiUp = async (timeoutMs: number): Promise<void> => {
    await eventually(
      async () => {
        if (launcher.exitCode !== null) {
          await outputDone;
          throw new LauncherExited(launcher.exitCode, await tail(logFile));
        }
        return (await fetch(`${origin}/healthz`)).ok;
      },
      {
        what: `the API of the npm start stack (see ${path.relative(root, logFile)})`,
        timeoutMs,
        intervalMs: 100,
        stopOn: (err) => err instanceof LauncherExited,
      },
    );
  };

  const stop = async (): Promise<void> => {
    if (launcher.pid && launcher.exitCode === null && launcher.signalCode === null) {
      const exited = new Promise((resolve) => launcher.once('exit', resolve));
      launcher.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(resolve, 30_000)))]);
      clearTimeout(timer);
    }
    if (launcher.pid) {
      try {
        process.kill(-launcher.pid, 'SIGKILL');
      } catch {
        // The whole group has already gone.
      }
    }
    await rm(dataDir, { recursive: true, force: true });
  };

  const childPid = async (command: RegExp): Promise<number> => {
    const { stdout } = await run('ps', ['-o', 'pid=,args=', '--ppid', String(launcher.pid)]);
    const line = stdout.split('\n').find((l) => command.test(l));
    if (!line) throw new Error(`no child of the launcher runs ${command}; its children:\n${stdout}`);
    return Number(line.trim().split(/\s+/)[0]);
  };

  const adminJson = async <T>(...args: string[]): Promise<T> => {
    const { stdout } = await run(process.execPath, [path.join(root, 'dist/src/admin/cli.js'), ...args, '--json'], {
      env: { ...process.env, DATA_DIR: dataDir },
    });
    return JSON.parse(stdout) as T;
  };

  try {
    await apiUp(90_000);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    origin,
    temporalPort,
    dataDir,
    storeUrl: embeddedStoreUrl(path.join(dataDir, 'store')),
    apiUp,
    childPid,
    adminJson,
    stop,
  };
}

/** The launcher is gone: no wait brings its API up, and its last lines say why (CI keeps no files). */
class LauncherExited extends Error {
  constructor(code: number, lastLines: string) {
    super(`npm start exited with code ${code}; the end of its output:\n${lastLines}`);
    this.name = 'LauncherExited';
  }
}

const TAIL_LINES = 40;

async function tail(file: string): Promise<string> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');
}

/**
 * Takes a port the moment it is free, refusing every connection, so a restarted server cannot
 * listen on it until `holdMs` have passed.
 */
export async function holdPort(port: number, holdMs: number): Promise<void> {
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
