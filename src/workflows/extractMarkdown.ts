import { ActivityFailure, ApplicationFailure, TimeoutFailure, proxyActivities } from '@temporalio/workflow';
import type { ConvertActivities } from '../activities/convertPage';
import type { FetchActivities } from '../activities/fetchPage';
import { PAGE_GONE } from '../errors';
import type { Effort, ExtractMarkdownRequest, ExtractMarkdownResponse } from '../types';

export interface ExtractMarkdownInput {
  request: ExtractMarkdownRequest;
  fetchQueue: string;
}

/** How hard a fetch tries, by effort (spec 2.2). */
const FETCH_OPTIONS: Record<Effort, Parameters<typeof proxyActivities>[0]> = {
  min: { startToCloseTimeout: '10s', retry: { maximumAttempts: 1 } },
  standard: { startToCloseTimeout: '20s', retry: { maximumAttempts: 3, initialInterval: '500ms', backoffCoefficient: 2 } },
  max: { startToCloseTimeout: '30s', retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 } },
};

/** A holder process that died or evicted the page: fetching again is the remedy. */
const PAGE_ATTEMPTS = 3;

function pageWasLost(err: unknown): boolean {
  if (!(err instanceof ActivityFailure)) return false;
  const cause = err.cause;
  return (cause instanceof ApplicationFailure && cause.type === PAGE_GONE) || cause instanceof TimeoutFailure;
}

/**
 * Fetch a URL, then turn the page into Markdown where the fetch left it. Metadata always comes
 * back apart: the API caches the result and renders front matter per request.
 */
export async function extractMarkdown({ request, fetchQueue }: ExtractMarkdownInput): Promise<ExtractMarkdownResponse> {
  const { fetchPage } = proxyActivities<FetchActivities>({ taskQueue: fetchQueue, ...FETCH_OPTIONS[request.effort] });
  for (let attempt = 1; ; attempt++) {
    const page = await fetchPage({ url: request.url });
    const { convertPage } = proxyActivities<ConvertActivities>({
      taskQueue: page.holderQueue,
      scheduleToStartTimeout: '15s',
      startToCloseTimeout: '60s',
      retry: { maximumAttempts: 2 },
    });
    try {
      const converted = await convertPage({ pageId: page.pageId, content: request.content, metadataApart: true });
      return { url: request.url, ...converted };
    } catch (err) {
      if (attempt < PAGE_ATTEMPTS && pageWasLost(err)) continue;
      throw err;
    }
  }
}
