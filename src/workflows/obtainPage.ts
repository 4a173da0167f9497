import { ActivityFailure, ApplicationFailure, log, proxyActivities, type ActivityOptions } from '@temporalio/workflow';
import type { FetchActivities } from '../activities/fetchPage';
import type { PageReading, ReadingOf } from '../reading/readPage';
import type { RenderActivities } from '../activities/renderPage';
import type { PageCacheUse } from '../cache/pageCache';
import type { PageQueues, PageRequest } from '../operations/pageRequest';
import type { ActivityTimeouts } from '../config/timeouts';
import type { Effort, ObtainedPage } from '../types';
import { HEARTBEAT_TIMEOUT } from './heartbeat';

/**
 * The timeouts of runs started before workflows were given theirs in their input; replaying those
 * runs needs the same values.
 */
export const TIMEOUTS_BEFORE_INPUT: ActivityTimeouts = {
  fetchMs: 60_000,
  quickFetchMs: 60_000,
  renderMs: 90_000,
  modelMs: 600_000,
};

/**
 * How hard a plain fetch tries, by effort (spec §2.2): `min` asks the server once. The download has
 * its own deadline (FETCH_TIMEOUT_MS, shorter for `min`), the read its budget
 * (CONVERT_TIMEOUT_MS); the activity's timeout covers both.
 */
function fetchOptions(effort: Effort, timeouts: ActivityTimeouts): ActivityOptions {
  const heartbeat = { heartbeatTimeout: HEARTBEAT_TIMEOUT };
  // One HTTP attempt: the fetch activity makes `min`'s failures final, so a second attempt only
  // replaces one whose worker was lost mid-fetch.
  if (effort === 'min')
    return { ...heartbeat, startToCloseTimeout: timeouts.quickFetchMs, retry: { maximumAttempts: 2 } };
  if (effort === 'standard') {
    return {
      ...heartbeat,
      startToCloseTimeout: timeouts.fetchMs,
      retry: { maximumAttempts: 3, initialInterval: '500ms', backoffCoefficient: 2 },
    };
  }
  return { ...heartbeat, startToCloseTimeout: timeouts.fetchMs, retry: { maximumAttempts: 2 } };
}

function renderOptions(timeouts: ActivityTimeouts): ActivityOptions {
  return {
    startToCloseTimeout: timeouts.renderMs,
    heartbeatTimeout: HEARTBEAT_TIMEOUT,
    retry: { maximumAttempts: 2, initialInterval: '1s' },
  };
}

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
  const { activityTimeouts: timeouts = TIMEOUTS_BEFORE_INPUT, ...pageOptions } = options;
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
