import type { ResearchMode } from '../events/research';

/** How far each mode goes: `fast` answers from one round of a few searches; `balanced` digs up to three rounds deep. */
export interface ModeBudget {
  maxIterations: number;
  /** Search queries per round. */
  queries: number;
  /** Results asked of the engine per query. */
  resultsPerQuery: number;
  /** New pages read per round, search results and pages the caller named together. */
  pagesPerIteration: number;
  /** Links followed per round from the pages read (0: no following). */
  follow: number;
  /** Links an analysis may propose. */
  linksPerPage: number;
  /** Source notes the outline and the report work from. */
  maxSources: number;
  /** Drafts at most: the first, and one revision when the reviewer sends it back. */
  maxDrafts: number;
}

export const MODE_BUDGETS: Record<ResearchMode, ModeBudget> = {
  fast: {
    maxIterations: 1,
    queries: 3,
    resultsPerQuery: 5,
    pagesPerIteration: 6,
    follow: 0,
    linksPerPage: 0,
    maxSources: 10,
    maxDrafts: 2,
  },
  balanced: {
    maxIterations: 3,
    queries: 4,
    resultsPerQuery: 6,
    pagesPerIteration: 8,
    follow: 3,
    linksPerPage: 3,
    maxSources: 20,
    maxDrafts: 2,
  },
};

/** Pages named in a query that research reads first, at most. */
export const MAX_QUERY_URLS = 5;
