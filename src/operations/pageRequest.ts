import type { Effort, GeoTarget } from '../types';

/** What every operation that reads a page asks of it, and where its pages are obtained. */

/** The task queues where pages are fetched and rendered. */
export interface PageQueues {
  fetch: string;
  browser: string;
}

/** What the page-obtaining steps need to know of a request. */
export interface PageRequest {
  url: string;
  effort: Effort;
  geo_target?: GeoTarget;
}
