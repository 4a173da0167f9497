import type { PageBody } from '../extraction/pageToMarkdown';
import type { ObtainedPage } from '../types';
import type { PageReading, ReadingOf } from './readPage';
import type { ReadingPool } from './readingPool';

/** What the activity that obtained a page knows of it besides the body. */
export interface ObtainedFacts {
  requestedUrl: string;
  status: number;
  /** `performance.now()` when the download or render began. */
  startedAt: number;
  /** Fetched HTML: also tell whether a browser would see more of it. */
  detectShell: boolean;
}

/**
 * Reads a page just downloaded or rendered, reported with the facts its run's history shows. The
 * body moves to a conversion thread: it is not to be used after this call.
 */
export async function readObtained<R extends PageReading>(
  page: PageBody,
  facts: ObtainedFacts,
  reading: R,
  pool: ReadingPool,
  signal: AbortSignal,
): Promise<ObtainedPage<ReadingOf<R>>> {
  const obtainMs = Math.round(performance.now() - facts.startedAt);
  const bytes = page.body.byteLength;
  const readStarted = performance.now();
  const read = await pool.readPage(page, reading, { detectShell: facts.detectShell, signal });
  return {
    requestedUrl: facts.requestedUrl,
    finalUrl: page.finalUrl,
    status: facts.status,
    contentType: page.contentType,
    bytes,
    obtainMs,
    readMs: Math.round(performance.now() - readStarted),
    needsBrowser: read.needsBrowser,
    reading: read.reading,
  };
}
