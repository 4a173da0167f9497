import { ActivityFailure, ApplicationFailure, log, proxyActivities } from '@temporalio/workflow';
import type { FetchActivities } from '../activities/fetchPage';
import type { PageReading, ReadingOf } from '../reading/readPage';
import type { RenderActivities } from '../activities/renderPage';
import type { PageCacheUse } from '../cache/pageCache';
import type { PageQueues, PageRequest } from '../operations/pageRequest';
import { fetchOptions, renderOptions, type ActivityTimeouts } from '../config/timeouts';
import type { ObtainedPage } from '../types';

/** Answers that mean "not for plain clients": a browser may get through. */
const BLOCKED_STATUSES = new Set([401, 403, 406, 429, 503]);

function wasBlocked(err: unknown): boolean {
  const cause = err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : undefined;
  const details = cause?.details?.[0] as { httpStatus?: number } | undefined;
  return details?.httpStatus !== undefined && BLOCKED_STATUSES.has(details.httpStatus);
}

/** How a caller other than the extraction endpoints may bound and cache its fetches (Research). */
export interface ObtainOptions {
  /** The activities' timeouts from the run's input; runs started before they were given keep the old ones. */
  activityTimeouts?: ActivityTimeouts;
  /** Each download's or render's time limit instead of the worker's setting. */
  timeoutMs?: number;
  /** Read and refresh the result cache. */
  cache?: PageCacheUse;
}

/**
 * Gets the page by the effort asked for, read as `reading` says: `min` fetches once; `standard`
 * fetches with retries and turns to the browser when the fetch was blocked or got a page drawn
 * by script; `max` renders.
 */
export async function obtainPage<R extends PageReading>(
  request: PageRequest,
  queues: PageQueues,
  reading: R,
  options: ObtainOptions = {},
): Promise<ReadingOf<R>> {
  return (await obtainPageFacts(request, queues, reading, options)).reading;
}

/** The same, with what the activity learnt of the page (its final URL, whether the cache answered). */
export async function obtainPageFacts<R extends PageReading>(
  request: PageRequest,
  queues: PageQueues,
  reading: R,
  options: ObtainOptions = {},
): Promise<ObtainedPage<ReadingOf<R>>> {
  const { activityTimeouts: timeouts, ...pageOptions } = options;
  const target = { url: request.url, country: request.geo_target?.country, reading, ...pageOptions };
  const { renderPage } = proxyActivities<RenderActivities>({ taskQueue: queues.browser, ...renderOptions(timeouts) });
  // Only a render that comes first looks the page up; after a fetch, the fetch already has.
  const render = () =>
    renderPage(
      request.effort === 'max' ? target : { ...target, cache: options.cache && { ...options.cache, lookup: false } },
    );
  if (request.effort === 'max') return render();
  const { fetchPage } = proxyActivities<FetchActivities>({
    taskQueue: queues.fetch,
    ...fetchOptions(request.effort, timeouts),
  });
  let page;
  try {
    page = await fetchPage({ ...target, quick: request.effort === 'min' });
  } catch (err) {
    if (request.effort === 'standard' && wasBlocked(err)) {
      log.info('the fetch was blocked; rendering the page');
      return render();
    }
    throw err;
  }
  if (request.effort !== 'standard' || !page.needsBrowser) return page;
  log.info('the page is drawn by script; rendering it');
  try {
    return await render();
  } catch (err) {
    // The plain fetch did answer; a thin page beats an error.
    const error = err instanceof ActivityFailure && err.cause ? err.cause.message : String(err);
    log.warn('rendering failed; answering with the fetched page', { error });
    return page;
  }
}
