import { ActivityFailure, ApplicationFailure, TimeoutFailure, proxyActivities } from '@temporalio/workflow';
import type { FetchActivities } from '../activities/fetchPage';
import type { RenderActivities } from '../activities/renderPage';
import { PAGE_GONE } from '../errors';
import type { Effort, ExtractMarkdownRequest, FetchedPage } from '../types';

/** The task queues where pages are fetched and rendered. */
export interface PageQueues {
  fetch: string;
  browser: string;
}

/** What the page-obtaining steps need to know of a request. */
export type PageRequest = Pick<ExtractMarkdownRequest, 'url' | 'effort' | 'geo_target'>;

/** How hard a plain fetch tries, by effort (spec 2.2): `min` gets one short attempt. */
const FETCH_OPTIONS: Record<Effort, Parameters<typeof proxyActivities>[0]> = {
  min: { startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } },
  standard: { startToCloseTimeout: '15s', retry: { maximumAttempts: 3, initialInterval: '500ms', backoffCoefficient: 2 } },
  max: { startToCloseTimeout: '15s', retry: { maximumAttempts: 2 } },
};

const RENDER_OPTIONS: Parameters<typeof proxyActivities>[0] = {
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 2, initialInterval: '1s' },
};

/** Answers that mean "not for plain clients": a browser may get through. */
const BLOCKED_STATUSES = new Set([401, 403, 406, 429, 503]);

/** A holder process that died or evicted the page: fetching again is the remedy. */
export const PAGE_ATTEMPTS = 3;

function applicationCause(err: unknown): ApplicationFailure | undefined {
  return err instanceof ActivityFailure && err.cause instanceof ApplicationFailure ? err.cause : undefined;
}

export function pageWasLost(err: unknown): boolean {
  return applicationCause(err)?.type === PAGE_GONE || (err instanceof ActivityFailure && err.cause instanceof TimeoutFailure);
}

function wasBlocked(err: unknown): boolean {
  const details = applicationCause(err)?.details?.[0] as { httpStatus?: number } | undefined;
  return details?.httpStatus !== undefined && BLOCKED_STATUSES.has(details.httpStatus);
}

/**
 * Gets the page by the effort asked for: `min` fetches once; `standard` fetches with retries and
 * turns to the browser when the fetch was blocked or got a page drawn by script; `max` renders.
 */
export async function obtainPage(request: PageRequest, queues: PageQueues): Promise<FetchedPage> {
  const target = { url: request.url, country: request.geo_target?.country };
  const { renderPage } = proxyActivities<RenderActivities>({ taskQueue: queues.browser, ...RENDER_OPTIONS });
  if (request.effort === 'max') return renderPage(target);
  const { fetchPage } = proxyActivities<FetchActivities>({ taskQueue: queues.fetch, ...FETCH_OPTIONS[request.effort] });
  let page: FetchedPage;
  try {
    page = await fetchPage(target);
  } catch (err) {
    if (request.effort === 'standard' && wasBlocked(err)) return renderPage(target);
    throw err;
  }
  if (request.effort !== 'standard' || !page.needsBrowser) return page;
  try {
    return await renderPage(target);
  } catch {
    // The plain fetch did answer; a thin page beats an error.
    return page;
  }
}

