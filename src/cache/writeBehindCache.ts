import type { CachedPage, ResultCache } from './resultCache';

/**
 * Stores results after the answer has gone out, so no response waits on a cache write. A read
 * of a key this process is still writing waits for that write: a client that asks again at once
 * still gets its hit. A failed write only costs a later miss, so it is reported, not thrown.
 *
 * Only this process knows of its writes in flight. For a cache that replicas on other hosts read
 * (Redis), `behind: false` makes the answer wait for its write instead (a round trip to the cache,
 * against the tens of milliseconds of the miss it stores): a client whose next request reaches
 * another replica gets its hit, and is charged a hit's price, as it would from this one.
 */
export class WriteBehindCache implements ResultCache {
  private readonly pending = new Map<string, Promise<void>>();

  constructor(
    private readonly store: ResultCache,
    private readonly onWriteError: (err: unknown) => void,
    private readonly behind = true,
  ) {}

  async get(key: string): Promise<CachedPage | undefined> {
    await this.pending.get(key);
    return this.store.get(key);
  }

  async set(key: string, page: CachedPage): Promise<void> {
    const write: Promise<void> = this.store
      .set(key, page)
      .catch(this.onWriteError)
      .finally(() => {
        if (this.pending.get(key) === write) this.pending.delete(key);
      });
    this.pending.set(key, write);
    if (!this.behind) await write;
  }
}
