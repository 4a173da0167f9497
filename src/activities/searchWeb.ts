import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { SearchError, type SearchEngine, type SearchHit } from '../search/searchEngine';

export interface SearchWebInput {
  query: string;
  /** Results wanted at most. */
  count: number;
}

export interface SearchWebResult {
  /** Which engine answered, for the run's metrics. */
  engine: string;
  hits: SearchHit[];
}

/**
 * Research's web search, on its own task queue. A rate limit or a server error retries (after
 * the engine's Retry-After); a refusal (bad key, bad request) fails the attempt for good.
 */
export function createSearchActivities(engine: SearchEngine) {
  return {
    async searchWeb(input: SearchWebInput): Promise<SearchWebResult> {
      try {
        const hits = await engine.search(input.query, input.count, Context.current().cancellationSignal);
        return { engine: engine.name, hits };
      } catch (err) {
        if (!(err instanceof SearchError)) throw err;
        throw ApplicationFailure.create({
          type: 'search_failed',
          message: err.message,
          nonRetryable: !err.retryable,
          nextRetryDelay: err.retryAfterMs === undefined ? undefined : `${err.retryAfterMs}ms`,
        });
      }
    },
  };
}

export type SearchActivities = ReturnType<typeof createSearchActivities>;
