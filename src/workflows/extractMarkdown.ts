import type { ExtractMarkdownInput, ExtractMarkdownResult } from '../operations/extractMarkdown';
import { obtainPage } from './obtainPage';
import { recordingOutcome } from './outcome';

/**
 * Fetch a URL and turn the page into Markdown. Metadata always comes back apart: the API caches
 * the result and renders front matter per request.
 */
export async function extractMarkdown({
  request,
  queues,
  timeouts,
}: ExtractMarkdownInput): Promise<ExtractMarkdownResult> {
  return recordingOutcome(async () => {
    const converted = await obtainPage(
      request,
      queues,
      { as: 'markdown', content: request.content },
      { activityTimeouts: timeouts },
    );
    return { url: request.url, ...converted };
  });
}
