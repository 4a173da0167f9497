import type { CacheSettings } from '../config';
import { FileCache } from './fileCache';
import { RedisCache } from './redisCache';
import type { ResultCache } from './resultCache';

/**
 * The configured result cache: Redis when REDIS_URL is set (shared by every host), else files
 * in the data directory (shared by the processes of one host); none when CACHE_TTL_SECONDS=0.
 */
export function createResultCache(settings: CacheSettings): ResultCache | undefined {
  if (settings.ttlMs === 0) return undefined;
  if (settings.redisUrl) return new RedisCache(settings.redisUrl, settings.ttlMs);
  return new FileCache(settings.dir, settings.ttlMs);
}
