import { createHash } from 'node:crypto';
import type { ExtractMarkdownRequest } from '../operations/extractMarkdown';
import type { CacheScope } from '../config/settings';
import type { PageMetadata } from '../types';

/**
 * Converted pages, reused across requests. A hit is answered without a fetch; `nocache`
 * requests skip the read and refresh the entry. Stores are shared by every process of a host
 * (files) or by every host (Redis), so any API process can answer what any worker converted.
 */
export interface CachedPage {
  markdown: string;
  metadata: PageMetadata;
  storedAt: number;
}

export interface ResultCache {
  get(key: string): Promise<CachedPage | undefined>;
  set(key: string, page: CachedPage): Promise<void>;
}

/** The part of the cache an organization's requests read and write: its own, or '' (shared) in the global scope. */
export function cachePartition(scope: CacheScope, organization: string): string {
  return scope === 'global' ? '' : organization;
}

/**
 * What makes two requests want the same answer; `metadata` only changes the rendering. Scoped
 * per organization, `partition` is the organization; in the global scope it is empty.
 */
export function markdownCacheKey(
  request: Pick<ExtractMarkdownRequest, 'url' | 'content' | 'effort' | 'geo_target'>,
  partition: string,
): string {
  const identity = JSON.stringify([
    'markdown/v2',
    partition,
    request.url,
    request.content,
    request.effort,
    request.geo_target?.country ?? '',
  ]);
  return createHash('sha256').update(identity).digest('hex');
}
