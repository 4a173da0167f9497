import { spawn, type ChildProcess } from 'node:child_process';
import readline from 'node:readline';

/**
 * Child processes of the embedded stack and the test harness. Each child's output is
 * prefixed with its name; stopping sends SIGTERM, waits, then SIGKILL, so nothing outlives us.
 */
export interface Child {
  name: string;
  process: ChildProcess;
  exited: Promise<number | null>;
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  env?: NodeJS.ProcessEnv;
  /** Where each output line goes; defaults to this process's stdout, prefixed. */
  onLine?: (line: string) => void;
  /** Runs the child as this user (we must be root to ask), for programs that refuse root. */
  user?: { uid: number; gid: number };
}

export function spawnChild(name: string, command: string, args: string[], options: SpawnOptions = {}): Child {
  const child = spawn(command, args, {
    env: options.env ?? process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...options.user,
  });
  const onLine = options.onLine ?? ((line: string) => process.stdout.write(`[${name}] ${line}\n`));
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
