import { Context } from '@temporalio/activity';
import type { Page, Route } from 'playwright-core';
import type { BrowserSettings, GeoSettings } from '../config';
import { requireProxyFor } from '../operations/geo';
import { ServiceError } from '../errors';
import type { AddressPolicy } from '../net/addressPolicy';
import type { BrowserPool } from '../browser/browserPool';
import type { GuardProxy } from '../browser/guardProxy';
import { NetworkActivity } from '../browser/networkActivity';
import { relabelUndeclaredUtf8 } from '../browser/undeclaredUtf8';
import { isPdfType } from '../extraction/pdf/index';
import type { ObtainedPage } from '../types';
import { reportingFailures, transientFetchFailure } from '../temporal/activityFailures';
import { heartbeating } from '../temporal/heartbeating';
import { readObtained } from '../reading/readObtained';
import type { PageReading, ReadingOf } from '../reading/readPage';
import type { ReadingPool } from '../reading/readingPool';
import { throughCache, type PageCacheUse } from '../cache/pageCache';
import type { ResultCache } from '../cache/resultCache';

export interface RenderPageInput<R extends PageReading> {
  url: string;
  /** Render through the proxy configured for this country (spec §2.1). */
  country?: string;
  reading: R;
  /** The render's budget instead of RENDER_TIMEOUT_MS (a research request's `fetch_timeout`). */
  timeoutMs?: number;
  /** Read and refresh the result cache (research readings only). */
  cache?: PageCacheUse;
}

export interface RenderActivityDeps {
  pool: BrowserPool;
  proxy: GuardProxy;
  policy: AddressPolicy;
  settings: BrowserSettings;
  geo: GeoSettings;
  userAgent: string;
  reader: ReadingPool;
  cache?: ResultCache;
  onCacheWriteError: (err: unknown) => void;
}

/** Nothing a text extraction reads; skipping them is most of a render's speed. */
const BLOCKED_RESOURCES = new Set(['image', 'media', 'font', 'texttrack', 'eventsource', 'websocket', 'manifest']);

/** How long the network may stay busy before we take the DOM as it is. */
const SETTLE_MS = 2_500;
/** Scrolling gives lazy lists and images their chance to load; it stops at the page end. */
const SCROLL_STEPS = 12;

/** Media, fonts and the like are refused before they leave the browser. */
async function skipHeavyResources(route: Route): Promise<void> {
  if (BLOCKED_RESOURCES.has(route.request().resourceType())) return route.abort('blockedbyclient');
  return route.continue();
}

/** Longest a scroll step may take; a page that stops its own timers and frames is done scrolling. */
const SCROLL_STEP_MS = 1_000;

/**
 * `work`, or a failed fetch once `deadline` passes. Calls into the page run on its main thread,
 * which the page's own script can hold (a busy loop, timers and frames replaced), so none of them
 * may wait past the render's deadline.
 */
async function beforeDeadline<T>(work: Promise<T>, deadline: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new ServiceError('fetch_failed', `${what} did not finish before the render deadline`)),
      Math.max(0, deadline - Date.now()),
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Scrolls a screen at a time to the page end. Each step waits two frames, so scroll handlers
 * and intersection observers run; it waits for the network only when the step started loading.
 */
async function scrollThrough(page: Page, network: NetworkActivity, deadline: number): Promise<void> {
  for (let step = 0; step < SCROLL_STEPS && Date.now() < deadline; step++) {
    const scrolled = page.evaluate(async () => {
      window.scrollBy(0, window.innerHeight);
      // A page that never paints (hidden, stalled) still moves on after a moment.
      await new Promise((resolve) => {
        requestAnimationFrame(() => requestAnimationFrame(resolve));
        setTimeout(resolve, 100);
      });
      return window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
    });
    let atEnd: boolean;
    try {
      atEnd = await beforeDeadline(scrolled, Math.min(deadline, Date.now() + SCROLL_STEP_MS), 'a scroll step');
    } catch (err) {
      if (err instanceof ServiceError) return;
      throw err;
    }
    if (network.busy) await network.quiet(Math.min(deadline, Date.now() + SETTLE_MS));
    if (atEnd) break;
  }
}

/** What Playwright throws when the document it was reading went away: the page navigated on its own. */
const NAVIGATED_AWAY = /Execution context was destroyed|Cannot find context with specified id/;

/**
 * Reads the page, and reads it again if a script navigated it meanwhile (a script redirect, a
 * reload): the document it ends on is the one wanted. A page that keeps navigating to the
 * deadline is taken as a failed fetch.
 */
async function readingAfterNavigations<T>(page: Page, deadline: number, read: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await read();
    } catch (err) {
      if (!(err instanceof Error) || !NAVIGATED_AWAY.test(err.message)) throw err;
      if (Date.now() >= deadline)
        throw new ServiceError('fetch_failed', `${page.url()} kept navigating until the render deadline`);
      await page.waitForLoadState('load', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
    }
  }
}

export function createRenderActivities(deps: RenderActivityDeps) {
  const render = async (input: RenderPageInput<PageReading>, reading: PageReading): Promise<ObtainedPage<unknown>> => {
    let httpStatus = 0;
    const budgetMs = input.timeoutMs ?? deps.settings.renderTimeoutMs;
    return reportingFailures(
      () =>
        heartbeating(async () => {
          const started = performance.now();
          const deadline = Date.now() + budgetMs;
          await deps.policy.checkUrl(deps.policy.parseUrl(input.url));
          const upstream = input.country ? requireProxyFor(deps.geo, input.country) : undefined;
          const session = await deps.proxy.session(upstream);
          const refuseIfInternal = () => {
            if (session.blocked.length > 0)
              throw new ServiceError('internal_address', `the page reached for internal ${session.blocked[0]}`);
          };
          const rendered = await deps.pool
            .withContext({ userAgent: deps.userAgent, locale: 'en-US', proxy: session.proxy }, async (context) => {
              await context.route('**/*', skipHeavyResources);
              const page = await context.newPage();
              const network = new NetworkActivity(page);
              const loading = async <T>(load: () => Promise<T>): Promise<T> => {
                try {
                  return await load();
                } catch (err) {
                  refuseIfInternal();
                  throw new ServiceError(
                    'fetch_failed',
                    `render of ${input.url}: ${err instanceof Error ? err.message : String(err)}`,
                  );
                }
              };
              const loaded = await loading(() => page.goto(input.url, { waitUntil: 'load', timeout: budgetMs }));
              const servedType = loaded?.headers()['content-type'] ?? '';
              if (isPdfType(servedType)) {
                // Chromium shows a PDF in its viewer; the document itself is what is wanted.
                const download = await context.request.get(page.url(), {
                  timeout: Math.max(1000, deadline - Date.now()),
                });
                httpStatus = download.status();
                refuseIfInternal();
                return { body: await download.body(), contentType: servedType, finalUrl: page.url() };
              }
              const response =
                loaded &&
                (await loading(() => relabelUndeclaredUtf8(page, loaded, Math.max(1000, deadline - Date.now()))));
              try {
                return await readingAfterNavigations(page, deadline, async () => {
                  await network.quiet(Math.min(deadline, Date.now() + SETTLE_MS));
                  await scrollThrough(page, network, deadline);
                  await network.quiet(Math.min(deadline, Date.now() + SETTLE_MS));
                  // The status of the document now shown: a challenge page that reloaded itself counts
                  // as its final load.
                  const navigation = page.evaluate(
                    () =>
                      (performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined)
                        ?.responseStatus ?? 0,
                  );
                  httpStatus =
                    (await beforeDeadline(navigation, deadline, 'reading the status')) || (response?.status() ?? 0);
                  const html = await beforeDeadline(page.content(), deadline, 'reading the page');
                  // Checked after the last read, so whatever the page reached for before it is charged.
                  refuseIfInternal();
                  return {
                    body: Buffer.from(html, 'utf8'),
                    contentType: 'text/html; charset=utf-8',
                    finalUrl: page.url(),
                  };
                });
              } catch (err) {
                // A page that navigated to an internal address broke the reading on its way there.
                refuseIfInternal();
                throw err;
              }
            })
            .finally(() => session.end());
          if (httpStatus >= 400) {
            const error = new ServiceError(
              'fetch_failed',
              `${rendered.finalUrl} answered HTTP ${httpStatus} in the browser`,
            );
            error.httpStatus = httpStatus;
            throw error;
          }
          return readObtained(
            { ...rendered, truncated: false },
            { requestedUrl: input.url, status: httpStatus, startedAt: started, detectShell: false },
            reading,
            deps.reader,
            Context.current().cancellationSignal,
          );
        }),
      (err) => transientFetchFailure(err, httpStatus),
    );
  };
  return {
    /** Loads a page in Chromium, lets its scripts run, and reads the final DOM as asked. */
    async renderPage<R extends PageReading>(input: RenderPageInput<R>): Promise<ObtainedPage<ReadingOf<R>>> {
      return throughCache(deps.cache, input, (reading) => render(input, reading), deps.onCacheWriteError);
    },
  };
}

export type RenderActivities = ReturnType<typeof createRenderActivities>;
