import { createHash } from 'node:crypto';
import type { ExtractMarkdownRequest, PageMetadata } from '../types';

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

/** What makes two requests want the same answer; `metadata` only changes the rendering. */
export function markdownCacheKey(request: Pick<ExtractMarkdownRequest, 'url' | 'content' | 'effort' | 'geo_target'>): string {
  const identity = JSON.stringify(['markdown/v1', request.url, request.content, request.effort, request.geo_target?.country ?? '']);
  return createHash('sha256').update(identity).digest('hex');
}
