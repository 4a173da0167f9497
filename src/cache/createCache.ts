import type { CacheSettings } from '../config';
import { FileCache } from './fileCache';
import type { ResultCache } from './resultCache';

/** The configured result cache, or undefined when caching is off (`CACHE_TTL_SECONDS=0`). */
export function createResultCache(settings: CacheSettings): ResultCache | undefined {
  if (settings.ttlMs === 0) return undefined;
  return new FileCache(settings.dir, settings.ttlMs);
}
