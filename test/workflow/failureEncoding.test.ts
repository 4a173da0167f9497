import { ApplicationFailure } from '@temporalio/common';
import type { MarkdownReading } from '../../src/reading/markdownReading';
import type { ObtainedPage } from '../../src/types';
import { failureOf, startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';

/**
 * Failure messages and stack traces go through the payload codec: a failure that quotes a secret
 * (here a URL's token, as a fetch error quotes the URL) shows in history only encrypted, and
 * clients still read the message.
 */

const TASK_QUEUE = 'failure-encoding';
const TOKEN = 'tok-5f1c9e3a7b2d';
const URL = `https://news.example/story?token=${TOKEN}`;

let tier: WorkflowTier;

const activities = {
  async fetchPage(): Promise<ObtainedPage<MarkdownReading>> {
    throw ApplicationFailure.create({ type: 'fetch_failed', message: `${URL} answered HTTP 404`, nonRetryable: true });
  },
  async renderPage(): Promise<ObtainedPage<MarkdownReading>> {
    throw new Error(`rendering ${URL} is not expected`);
  },
};

beforeAll(async () => {
  tier = await startWorkflowTier(TASK_QUEUE, activities);
});

afterAll(() => tier?.stop());

/** All the text a history shows without keys: its strings and its payloads' bytes. */
function readableText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('latin1');
  if (!value || typeof value !== 'object') return '';
  return Object.values(value).map(readableText).join('\n');
}

it('keeps failure messages out of history in clear, and clients still read them', async () => {
  const handle = await tier.start('extractMarkdown', {
    request: { url: 'https://news.example/story', effort: 'min', content: 'main', metadata: false, nocache: true },
    queues: { fetch: TASK_QUEUE, browser: TASK_QUEUE },
  });
  expect((await failureOf(handle.result())).message).toBe(`${URL} answered HTTP 404`);

  const history = await handle.fetchHistory();
  const failures = (history.events ?? []).filter(
    (event) => event.activityTaskFailedEventAttributes || event.workflowExecutionFailedEventAttributes,
  );
  expect(failures).toHaveLength(2);
  expect(readableText(history).split(TOKEN).length - 1).toBe(0);
});
