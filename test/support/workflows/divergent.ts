import { proxyActivities, upsertSearchAttributes } from '@temporalio/workflow';
import type { RenderActivities } from '../../../src/activities/renderPage';
import type { ExtractMarkdownInput, ExtractMarkdownResult } from '../../../src/operations/extractMarkdown';
import type { StructuredJsonInput } from '../../../src/operations/structuredJson';
import { OUTCOME } from '../../../src/temporal/searchAttributes';
import { extractJson as currentExtractJson } from '../../../src/workflows';

/**
 * Test only: workflows that part from the recorded histories in test/histories/ on purpose, to
 * see how the replay tool reports each kind of divergence.
 */

/** Renders where the recorded run fetched: the same kind of command, for another activity. */
export async function extractMarkdown({ request, queues }: ExtractMarkdownInput): Promise<ExtractMarkdownResult> {
  const { renderPage } = proxyActivities<RenderActivities>({ taskQueue: queues.browser, startToCloseTimeout: '1m' });
  const page = await renderPage({ url: request.url, reading: { as: 'markdown', content: request.content } });
  return { url: request.url, ...page.reading };
}

/** Sets a search attribute at the end without guarding it: a command the recorded run lacks. */
export async function extractJson(input: StructuredJsonInput): Promise<unknown> {
  const value = await currentExtractJson(input);
  upsertSearchAttributes([{ key: OUTCOME, value: 'completed' }]);
  return value;
}
