import { Context } from '@temporalio/activity';
import { markdownCacheKey, type ResultCache } from './resultCache';
import type { ObtainedPage } from '../types';
import type { MarkdownReading } from '../reading/markdownReading';
import type { PageReading, ReadingOf } from '../reading/readPage';
import { researchReadingOf } from '../reading/researchReading';

/**
 * How a research fetch uses the result cache Extract Markdown fills: the entry of the page's main
 * content at effort `standard`, in the caller's partition (its organization, or '' when the
 * cache is global). `lookup: false` (the request's `nocache`, or a render after a fetch that
 * missed) skips the read; the entry is refreshed either way.
 */
export interface PageCacheUse {
  partition: string;
  lookup: boolean;
}

export interface CacheableInput<R extends PageReading> {
  url: string;
  reading: R;
  cache?: PageCacheUse;
}

/**
 * Obtains a page through the cache: a hit is read at once; a miss is obtained as the main
 * content's Markdown, stored, then read as research reads it. Readings other than research, and
 * requests without `cache`, are obtained as they are.
 */
export async function throughCache<R extends PageReading>(
  store: ResultCache | undefined,
  input: CacheableInput<R>,
  obtain: (reading: PageReading) => Promise<ObtainedPage<unknown>>,
  onWriteError: (err: unknown) => void,
): Promise<ObtainedPage<ReadingOf<R>>> {
  const reading = input.reading;
  if (!store || !input.cache || reading.as !== 'research') return (await obtain(reading)) as ObtainedPage<ReadingOf<R>>;
  const key = markdownCacheKey({ url: input.url, content: 'main', effort: 'standard' }, input.cache.partition);
  const hit = input.cache.lookup ? await store.get(key).catch(() => undefined) : undefined;
  if (hit) {
    const page = { content: hit.markdown, metadata: hit.metadata };
    return {
      requestedUrl: input.url,
      finalUrl: input.url,
      status: 200,
      contentType: 'text/markdown',
      bytes: 0,
      obtainMs: 0,
      needsBrowser: false,
      cached: true,
      reading: researchReadingOf(page, reading.tokens, input.url) as ReadingOf<R>,
    };
  }
  const obtained = (await obtain({ as: 'markdown', content: 'main' })) as ObtainedPage<MarkdownReading>;
  // A script shell is not worth keeping: the render that follows stores the page instead.
  if (!obtained.needsBrowser) {
    await store
      .set(key, { markdown: obtained.reading.content, metadata: obtained.reading.metadata, storedAt: Date.now() })
      .catch(onWriteError);
  }
  return {
    ...obtained,
    reading: researchReadingOf(obtained.reading, reading.tokens, obtained.finalUrl) as ReadingOf<R>,
  };
}

/** A failed cache write only costs a later miss: it goes to the activity's log, whose lines name the run. */
export function logCacheWriteError(err: unknown): void {
  Context.current().log.warn('cache write failed', { error: err });
}
