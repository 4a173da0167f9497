import type { ResearchMode } from '../events/research';
import type { ExcerptBudget } from './excerpts';

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
  /**
   * Drafts at most: the first, and one revision when the reviewer sends it back. `fast` writes
   * once; its 2 holds for runs started before it did (FAST_SHAPE_PATCH), so they replay alike.
   */
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

/**
 * What `fast` gives its writer from the pages it read: about 4,000 tokens of their best
 * passages, a few per page, so one page cannot fill the prompt.
 */
export const FAST_EXCERPTS: ExcerptBudget = { totalChars: 16_000, chunkChars: 1_200, perPage: 3 };

/** Pages named in a query that research reads first, at most. */
export const MAX_QUERY_URLS = 5;
