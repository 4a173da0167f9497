import type { ActivityTimeouts } from '../config/timeouts';
import type { ResearchMode } from '../events/research';
import type { PageQueues } from './pageRequest';

/** Research: the request after validation and defaults, and the workflow's input. */

export interface ResearchRequest {
  query: string;
  mode: ResearchMode;
  /** `fetch_timeout`: each page's download (or render) limit. */
  fetchTimeoutMs?: number;
  nocache: boolean;
}

export interface ResearchInput {
  request: ResearchRequest;
  queues: PageQueues & { model: string; search: string };
  /** The result cache partition: the organization, or '' when the cache is global. */
  cachePartition: string;
  /** Pages read and analyzed at once (RESEARCH_PAGE_CONCURRENCY). */
  pageConcurrency: number;
  /** Page text one analysis reads (RESEARCH_PAGE_TOKENS). */
  pageTokens: number;
  /** The activities' timeouts (src/config/timeouts.ts); absent in runs started before they were given. */
  timeouts?: ActivityTimeouts;
}
