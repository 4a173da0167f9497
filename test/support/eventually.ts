export interface EventuallyOptions {
  /** What the test waits for, as the failure names it: "the fetch worker to be gone". */
  what: string;
  timeoutMs: number;
  /** Pause between two checks; small, since conditions here are cheap reads of local state. */
  intervalMs?: number;
  /** An error that no later check can undo (the process awaited has exited): thrown at once. */
  stopOn?: (err: unknown) => boolean;
}

type Truthy<T> = Exclude<T, false | 0 | '' | null | undefined>;

/**
 * Polls `condition` until it returns a truthy value, and returns that value. A check that throws
 * counts as not yet (a server still starting refuses connections); when time runs out the failure
 * says what was awaited and the last error seen, so a slow machine fails with a reason, not a hang.
 */
export async function eventually<T>(
  condition: () => T | Promise<T>,
  { what, timeoutMs, intervalMs = 20, stopOn }: EventuallyOptions,
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await condition();
      if (value) return value as Truthy<T>;
    } catch (err) {
      if (stopOn?.(err)) throw err;
      lastError = err;
    }
    if (Date.now() >= deadline) {
      const reason = lastError === undefined ? '' : `; last error: ${String(lastError)}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
