import { readdirSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/** Roles whose work is bulk: downloading, reading and rendering pages. */
const PAGE_ROLES: ReadonlySet<string> = new Set(['fetch', 'browser']);

/**
 * The nice value a worker process takes for its roles: `pageNice` when it runs page roles only,
 * else 0. Workflow tasks, the relay of events and model calls wait on one another in a chain;
 * page work is the bulk of the CPU. On a machine that runs both, page work should yield.
 */
export function niceForRoles(roles: readonly string[], pageNice: number): number {
  return roles.length > 0 && roles.every((role) => PAGE_ROLES.has(role)) ? pageNice : 0;
}

/**
 * Lowers this process's CPU priority to `nice`. Linux keeps a nice value per thread: each thread
 * running now is set, and what starts afterwards (conversion threads, the Temporal SDK's runtime
 * threads, Chromium) inherits the main thread's. A thread already lower keeps its own (raising
 * priority again needs a privilege). Returns the threads that could not be set and why.
 */
export function lowerCpuPriority(nice: number): string[] {
  if (nice === 0) return [];
  const threads = process.platform === 'linux' ? readdirSync('/proc/self/task').map(Number) : [0];
  const failures: string[] = [];
  for (const thread of threads) {
    try {
      if (getPriority(thread) < nice) setPriority(thread, nice);
    } catch (err) {
      // A thread that ended since the listing has nothing to lower (Node puts the errno's name in `info`).
      if ((err as { info?: { code?: string } }).info?.code !== 'ESRCH') failures.push(`${thread}: ${String(err)}`);
    }
  }
  return failures;
}
