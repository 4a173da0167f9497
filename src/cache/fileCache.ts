import cacache from 'cacache';
import type { CachedPage, ResultCache } from './resultCache';

/**
 * The single-host store: cacache, npm's own content-addressed cache. Writes are atomic and
 * safe across processes, and reads verify content integrity, so the API and any number of
 * worker processes on one machine share it without a server.
 */
export class FileCache implements ResultCache {
  constructor(
    private readonly dir: string,
    private readonly ttlMs: number,
  ) {}

  async get(key: string): Promise<CachedPage | undefined> {
    const info = await cacache.get.info(this.dir, key);
    if (!info || Date.now() - info.time > this.ttlMs) return undefined;
    try {
      // By the entry's digest: cacache.get would read and parse the index again.
      const data = await cacache.get.byDigest(this.dir, info.integrity);
      return JSON.parse(data.toString('utf8')) as CachedPage;
    } catch {
      // An entry whose content was cleaned away or failed its integrity check is a miss.
      return undefined;
    }
  }

  /**
   * cacache appends an index line per write, and every read parses them all: an entry refreshed a
   * thousand times (`nocache`) made a hit cost 10 ms of CPU. Only the newest line is kept. Of two
   * processes refreshing one entry at once, the second's line may be lost to the first's
   * rewrite: the entry is then the first's page, written the same moment.
   */
  async set(key: string, page: CachedPage): Promise<void> {
    await cacache.put(this.dir, key, JSON.stringify(page));
    await cacache.index.compact(this.dir, key, () => true);
  }
}

/**
 * cacache's `removeFully` deletes the index bucket instead of appending a tombstone, so the index
 * shrinks; its published types predate that option.
 */
const removeEntryFully = cacache.rm.entry as unknown as (
  dir: string,
  key: string,
  opts: { removeFully: boolean },
) => Promise<void>;

/** Drops expired entries, then the content no entry points to any more. */
export async function pruneFileCache(dir: string, ttlMs: number): Promise<number> {
  const entries = await cacache.ls(dir);
  const expired = Object.values(entries).filter((entry) => Date.now() - entry.time > ttlMs);
  for (const entry of expired) await removeEntryFully(dir, entry.key, { removeFully: true });
  if (expired.length > 0) await cacache.verify(dir);
  return expired.length;
}
