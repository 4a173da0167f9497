import { Counter, type Registry } from 'prom-client';
import type { CachedPage, ResultCache } from '../../cache/resultCache';

export type CacheLookups = Counter<'result'>;

export function cacheLookups(registry: Registry): CacheLookups {
  return new Counter({
    name: 'webloom_cache_lookups_total',
    help: 'Result cache lookups, by result: hit, miss or error',
    labelNames: ['result'],
    registers: [registry],
  });
}

/** The cache, with every lookup counted by its result. */
export function countedCache(store: ResultCache, lookups: CacheLookups): ResultCache {
  return {
    async get(key: string): Promise<CachedPage | undefined> {
      let page: CachedPage | undefined;
      try {
        page = await store.get(key);
      } catch (err) {
        lookups.inc({ result: 'error' });
        throw err;
      }
      lookups.inc({ result: page ? 'hit' : 'miss' });
      return page;
    },
    set: (key, page) => store.set(key, page),
  };
}
