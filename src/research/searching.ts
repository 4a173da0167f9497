import { isCancellation } from '@temporalio/workflow';
import type { SearchHit } from '../search/searchEngine';
import type { RunMetrics } from './runMetrics';

/** What a search answers: the engine that did, and its hits. */
export interface SearchAnswer {
  engine: string;
  hits: SearchHit[];
}

/**
 * Runs a round's queries at once. A failed search goes to `failed` and answers undefined, in its
 * query's place, so the others still count; cancellation goes through.
 */
export function searchAll(
  queries: string[],
  search: (query: string) => Promise<SearchAnswer>,
  metrics: RunMetrics,
  failed: (err: unknown) => void,
): Promise<(SearchAnswer | undefined)[]> {
  return Promise.all(
    queries.map(async (query): Promise<SearchAnswer | undefined> => {
      metrics.searchesRun++;
      try {
        const answer = await search(query);
        metrics.searched(answer.engine);
        return answer;
      } catch (err) {
        if (isCancellation(err)) throw err;
        failed(err);
        return undefined;
      }
    }),
  );
}
