import { setTimeout as sleep } from 'node:timers/promises';

/** How often a launcher asks an API whether it can serve requests yet. */
const POLL_MS = 250;

/**
 * Resolves once the API at `baseUrl` says it can serve requests (its /ready: Temporal answers and
 * a worker polls every queue it needs), so what the launcher prints next is true at once.
 */
export async function untilServing(baseUrl: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const answer = await fetch(`${baseUrl}/ready`, { signal });
      if (answer.ok) return;
      last = JSON.stringify(((await answer.json()) as { missing?: string[] }).missing ?? answer.status);
    } catch (err) {
      if (signal.aborted) throw err;
    }
    await sleep(POLL_MS, undefined, { signal });
  }
  throw new Error(`the API at ${baseUrl} was not ready after ${timeoutMs} ms: ${last}`);
}

/**
 * Whether the API has a route at `path`: the banner names no address that would answer 404.
 * OPTIONS is answered before authentication (src/api/middleware/crossOrigin.ts), 404 for a path
 * with no route, so the probe needs no key and a keyed route is still found.
 */
export async function serves(baseUrl: string, path: string): Promise<boolean> {
  const answer = await fetch(`${baseUrl}${path}`, { method: 'OPTIONS', redirect: 'manual' });
  await answer.body?.cancel();
  return answer.status !== 404;
}
