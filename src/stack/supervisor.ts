import { setTimeout as sleep } from 'node:timers/promises';
import type { Child } from './children';

/**
 * When a crashed child is started again. The pause doubles with each crash in a row, from
 * `firstDelayMs` up to `maxDelayMs`; a run that lasted `stableAfterMs` starts the count over.
 * A child that crashed `maxQuickCrashes` times in a row, each time before it had run that
 * long, is broken (a bad setting, a port taken, a missing binary) rather than unlucky, and is
 * given up.
 */
export interface RestartPolicy {
  firstDelayMs: number;
  maxDelayMs: number;
  stableAfterMs: number;
  maxQuickCrashes: number;
}

/**
 * A child that keeps crashing gets about a minute of restarts (0.5, 1, 2, 4, 8, 16 and 30 s
 * apart) before it is given up: long enough to outlast a dev server that is slow to come back.
 */
export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  stableAfterMs: 60_000,
  maxQuickCrashes: 8,
};

/** The pause before restarting a child that has crashed `crashesInARow` times (1 for the first). */
export function restartDelay(policy: RestartPolicy, crashesInARow: number): number {
  return Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (crashesInARow - 1));
}

export interface SupervisorOptions {
  policy?: Partial<RestartPolicy>;
  /** Where each crash, restart and give-up is reported. */
  log: (line: string) => void;
  /** Called when a child is given up: the stack is then incomplete. */
  onGiveUp?: (name: string) => void;
}

interface Supervised {
  name: string;
  start: () => Promise<Child>;
  child?: Child;
  /** The restart loop; it settles once the supervisor stops or the child is given up. */
  watching?: Promise<void>;
}

/**
 * Owns the child processes of a local stack and keeps them running: a child that exits while
 * the stack is not stopping is started again, the same way it was started the first time.
 * Stopping stops the children in the reverse order of their start, and restarts none.
 */
export class Supervisor {
  private readonly policy: RestartPolicy;
  private readonly supervised: Supervised[] = [];
  /** First starts under way, which stop() waits for so that no child outlives the stack. */
  private readonly starting = new Set<Promise<Child>>();
  private readonly stopping = new AbortController();

  constructor(private readonly options: SupervisorOptions) {
    this.policy = { ...DEFAULT_RESTART_POLICY, ...options.policy };
  }

  /**
   * Starts a child with `start` (which resolves once the child is ready) and keeps it running.
   * A first start that fails is thrown to the caller: a stack that never came up is not
   * recovered, it is reported.
   */
  async add(name: string, start: () => Promise<Child>): Promise<Child> {
    const starting = start();
    this.starting.add(starting);
    const child = await starting.finally(() => this.starting.delete(starting));
    if (this.stopping.signal.aborted) {
      await child.stop();
      throw new Error(`the stack was stopped while ${name} was starting`);
    }
    const entry: Supervised = { name, start, child };
    this.supervised.push(entry);
    entry.watching = this.watch(entry, child);
    return child;
  }

  /** Aborted once stop() begins, so a start still waiting for its child to get ready can end at once. */
  get stopSignal(): AbortSignal {
    return this.stopping.signal;
  }

  /** The process running under `name` now: a new one after each restart, none while it is down. */
  current(name: string): Child | undefined {
    return this.supervised.find((entry) => entry.name === name)?.child;
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    for (const entry of [...this.supervised].reverse()) await entry.child?.stop();
    await Promise.all(
      [...this.starting].map((starting) =>
        starting.then(
          (child) => child.stop(),
          () => undefined,
        ),
      ),
    );
    await Promise.all(this.supervised.map((entry) => entry.watching));
  }

  private async watch(entry: Supervised, first: Child): Promise<void> {
    let child: Child | undefined = first;
    let startedAt = Date.now();
    let crashes = 0;
    let failure = '';
    for (;;) {
      if (child) {
        await child.exited;
        const { exitCode, signalCode } = child.process;
        failure = signalCode ? `was killed by ${signalCode}` : `exited with code ${exitCode}`;
      }
      if (this.stopping.signal.aborted) return;
      entry.child = undefined;
      crashes = Date.now() - startedAt >= this.policy.stableAfterMs ? 1 : crashes + 1;
      if (crashes >= this.policy.maxQuickCrashes) {
        this.options.log(
          `${entry.name} ${failure}; giving up on it after ${crashes} crashes in a row, each within ` +
            `${this.policy.stableAfterMs / 1000} s of its start`,
        );
        this.options.onGiveUp?.(entry.name);
        return;
      }
      const delay = restartDelay(this.policy, crashes);
      this.options.log(`${entry.name} ${failure}; restarting it in ${delay} ms`);
      try {
        await sleep(delay, undefined, { signal: this.stopping.signal });
      } catch {
        return;
      }
      startedAt = Date.now();
      try {
        child = await entry.start();
      } catch (err) {
        child = undefined;
        failure = `failed to restart (${err instanceof Error ? err.message : String(err)})`;
        continue;
      }
      if (this.stopping.signal.aborted) {
        // stop() ran while this child was starting, so it did not see it.
        await child.stop();
        return;
      }
      entry.child = child;
      this.options.log(`${entry.name} restarted (pid ${child.process.pid})`);
    }
  }
}
