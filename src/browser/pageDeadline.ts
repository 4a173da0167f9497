/** The page's main thread did not answer in time: its own script holds it (a busy loop), or it is swamped. */
export class PageUnresponsiveError extends Error {}

/**
 * `work`, or PageUnresponsiveError after `ms`. Whatever runs in the page waits on the page's
 * main thread, which a hostile page can hold for ever; no step of a session may wait on it
 * longer than its bound.
 */
export async function withinMs<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PageUnresponsiveError(`${what} took longer than ${ms / 1000} s`)), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
