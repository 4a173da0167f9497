import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import readline from 'node:readline';
import { jsonLine } from '../telemetry/logFormat';

/**
 * Child processes of the embedded stack and the test harness. Each child's output names it;
 * stopping sends SIGTERM, waits, then SIGKILL, so nothing outlives us.
 */
export interface Child {
  name: string;
  process: ChildProcess;
  exited: Promise<number | null>;
  stop(graceMs?: number): Promise<void>;
}

/**
 * Node has no PR_SET_PDEATHSIG, so children start through util-linux's setpriv, which asks the
 * kernel for it and then becomes the program: a child gets `parentDeathSignal` the moment the
 * process that spawned it dies, SIGKILL included, and a killed launcher leaves nothing running.
 * Where setpriv is missing (not Linux), children start as they are and that guarantee is lost.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((candidate) => existsSync(candidate));

/** How a child's line reaches this process's stdout; a launcher sets it once for its terminal. */
let formatLine: (process: string, line: string) => string = jsonLine;

/** Launchers call this before their first child starts (see childLineFormat). */
export function formatChildLines(format: (process: string, line: string) => string): void {
  formatLine = format;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  /** Where each output line goes; defaults to this process's stdout, formatted (see formatChildLines). */
  onLine?: (line: string) => void;
  /** Runs the child as this user (we must be root to ask), for programs that refuse root. */
  user?: { uid: number; gid: number };
  /** What the child gets when this process dies; SIGTERM unless the program stops better on another. */
  parentDeathSignal?: NodeJS.Signals;
}

export function spawnChild(name: string, command: string, args: string[], options: SpawnOptions = {}): Child {
  const [program, programArgs] = SETPRIV
    ? [SETPRIV, ['--pdeathsig', options.parentDeathSignal ?? 'SIGTERM', '--', command, ...args]]
    : [command, args];
  const child = spawn(program, programArgs, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  const onLine = options.onLine ?? ((line: string) => process.stdout.write(`${formatLine(name, line)}\n`));
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream }).on('line', onLine);
  }
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? (signal ? 128 : null)));
    child.once('error', (err) => {
      onLine(`failed to start: ${err.message}`);
      resolve(null);
    });
  });
  return {
    name,
    process: child,
    exited,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Polls until `ready` resolves true, the child exits, or time runs out; a child that never got
 * ready is stopped, so a failed start leaves no process behind.
 */
export async function waitUntil(
  what: string,
  child: Child,
  ready: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${child.name} exited before ${what}`);
    if (await ready().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await child.stop();
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
