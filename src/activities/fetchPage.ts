import { Context } from '@temporalio/activity';
import type { Dispatcher } from 'undici';
import type { FetchSettings, GeoSettings } from '../config';
import { requireProxyFor } from '../operations/geo';
import { ServiceError } from '../errors';
import type { AddressPolicy } from '../net/addressPolicy';
import { createProxyAgent, httpFetch } from '../net/httpFetch';
import type { ObtainedPage } from '../types';
import { reportingFailures, transientFetchFailure } from '../temporal/activityFailures';
import { heartbeating } from '../temporal/heartbeating';
import { readObtained } from '../reading/readObtained';
import type { PageReading, ReadingOf } from '../reading/readPage';
import type { ReadingPool } from '../reading/readingPool';
import { throughCache, type PageCacheUse } from '../cache/pageCache';
import type { ResultCache } from '../cache/resultCache';

export interface FetchPageInput<R extends PageReading> {
  url: string;
  /** Fetch through the proxy configured for this country (spec §2.1). */
  country?: string;
  /** Effort `min`: the short download limit (FETCH_MIN_EFFORT_TIMEOUT_MS). */
  quick?: boolean;
  reading: R;
  /** The download's limit instead of FETCH_TIMEOUT_MS (a research request's `fetch_timeout`). */
  timeoutMs?: number;
  /** Read and refresh the result cache (research readings only). */
  cache?: PageCacheUse;
}

export interface FetchActivityDeps {
  settings: FetchSettings;
  geo: GeoSettings;
  policy: AddressPolicy;
  agent: Dispatcher;
  reader: ReadingPool;
  cache?: ResultCache;
  onCacheWriteError: (err: unknown) => void;
}

export function createFetchActivities(deps: FetchActivityDeps) {
  const proxyAgents = new Map<string, Dispatcher>();
  /** The country's proxy pool; a country without one is refused, never fetched directly. */
  const dispatcherFor = (country: string | undefined): Dispatcher => {
    if (!country) return deps.agent;
    const proxyUrl = requireProxyFor(deps.geo, country);
    let agent = proxyAgents.get(proxyUrl);
    if (!agent) proxyAgents.set(proxyUrl, (agent = createProxyAgent(proxyUrl)));
    return agent;
  };
  const download = async (input: FetchPageInput<PageReading>, reading: PageReading): Promise<ObtainedPage<unknown>> => {
    let httpStatus = 0;
    const cancelled = Context.current().cancellationSignal;
    return reportingFailures(
      () =>
        heartbeating(async () => {
          const started = performance.now();
          const response = await httpFetch(input.url, deps.policy, dispatcherFor(input.country), {
            ...deps.settings,
            timeoutMs: input.timeoutMs ?? (input.quick ? deps.settings.minEffortTimeoutMs : deps.settings.timeoutMs),
            viaProxy: Boolean(input.country),
            signal: cancelled,
          });
          httpStatus = response.status;
          if (response.status >= 400) {
            const error = new ServiceError('fetch_failed', `${response.finalUrl} answered HTTP ${response.status}`);
            error.httpStatus = response.status;
            throw error;
          }
          const contentType = response.headers.get('content-type') ?? '';
          const isHtml =
            /html/i.test(contentType) ||
            (!contentType && /^\s*</.test(response.body.subarray(0, 64).toString('latin1')));
          return readObtained(
            { body: response.body, contentType, finalUrl: response.finalUrl, truncated: response.truncated },
            { requestedUrl: input.url, status: response.status, startedAt: started, detectShell: isHtml },
            reading,
            deps.reader,
            cancelled,
          );
        }),
      // Effort min asks once: its failures are final (a lost worker's attempt is still retried).
      (err) => !input.quick && transientFetchFailure(err, httpStatus),
    );
  };
  return {
    /**
     * Downloads a page over plain HTTP and reads it as asked. Reading here, where the body
     * already is, keeps page bodies out of Temporal and saves a second task per request.
     */
    async fetchPage<R extends PageReading>(input: FetchPageInput<R>): Promise<ObtainedPage<ReadingOf<R>>> {
      return throughCache(deps.cache, input, (reading) => download(input, reading), deps.onCacheWriteError);
    },
  };
}

export type FetchActivities = ReturnType<typeof createFetchActivities>;
