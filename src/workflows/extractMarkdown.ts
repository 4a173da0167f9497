import { proxyActivities } from '@temporalio/workflow';
import type { ConvertActivities } from '../activities/convertPage';
import type { ExtractMarkdownRequest, ExtractMarkdownResult } from '../types';
import { obtainPage, PAGE_ATTEMPTS, pageWasLost, type PageQueues } from './obtainPage';

export interface ExtractMarkdownInput {
  request: ExtractMarkdownRequest;
  queues: PageQueues;
}

/**
 * Fetch a URL, then turn the page into Markdown where the fetch left it. Metadata always comes
 * back apart: the API caches the result and renders front matter per request.
 */
export async function extractMarkdown({ request, queues }: ExtractMarkdownInput): Promise<ExtractMarkdownResult> {
  for (let attempt = 1; ; attempt++) {
    const page = await obtainPage(request, queues);
    const { convertPage } = proxyActivities<ConvertActivities>({
      taskQueue: page.holderQueue,
      scheduleToStartTimeout: '15s',
      startToCloseTimeout: '60s',
      retry: { maximumAttempts: 2 },
    });
    try {
      const converted = await convertPage({ pageId: page.pageId, content: request.content });
      return { url: request.url, ...converted };
    } catch (err) {
      if (attempt < PAGE_ATTEMPTS && pageWasLost(err)) continue;
      throw err;
    }
  }
}
