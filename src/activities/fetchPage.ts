import type { Agent } from 'undici';
import type { FetchSettings } from '../config';
import { ServiceError } from '../errors';
import type { AddressPolicy } from '../net/addressPolicy';
import { needsBrowser } from '../extraction/scriptShell';
import { httpFetch } from '../net/httpFetch';
import type { FetchedPage } from '../types';
import { reportingFailures } from './failures';
import type { PageStore } from './pageStore';

export interface FetchPageInput {
  url: string;
}

export interface FetchActivityDeps {
  settings: FetchSettings;
  policy: AddressPolicy;
  agent: Agent;
  store: PageStore;
  /** This process's own task queue, where the page can be read back. */
  holderQueue: string;
}

/** Statuses worth another attempt: the server may answer differently a moment later. */
const TRANSIENT_STATUSES = new Set([408, 425, 429, 500, 502, 503, 504]);

export function createFetchActivities(deps: FetchActivityDeps) {
  return {
    /** Downloads a page over plain HTTP and parks its body in this process's page store. */
    async fetchPage(input: FetchPageInput): Promise<FetchedPage> {
      let httpStatus = 0;
      return reportingFailures(
        async () => {
          const started = performance.now();
          const response = await httpFetch(input.url, deps.policy, deps.agent, deps.settings);
          httpStatus = response.status;
          if (response.status >= 400) {
            const error = new ServiceError('fetch_failed', `${response.finalUrl} answered HTTP ${response.status}`);
            error.httpStatus = response.status;
            throw error;
          }
          const contentType = response.headers.get('content-type') ?? '';
          const isHtml = /html/i.test(contentType) || (!contentType && /^\s*</.test(response.body.subarray(0, 64).toString('latin1')));
          const pageId = deps.store.put({
            body: response.body,
            contentType,
            finalUrl: response.finalUrl,
            truncated: response.truncated,
          });
          return {
            pageId,
            holderQueue: deps.holderQueue,
            requestedUrl: input.url,
            finalUrl: response.finalUrl,
            status: response.status,
            contentType,
            bytes: response.body.byteLength,
            fetchMs: Math.round(performance.now() - started),
            needsBrowser: isHtml && needsBrowser(response.body.toString('utf8')),
          };
        },
        (err) => err.code === 'fetch_failed' && (httpStatus === 0 || TRANSIENT_STATUSES.has(httpStatus)),
      );
    },
  };
}

export type FetchActivities = ReturnType<typeof createFetchActivities>;
