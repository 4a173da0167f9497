import { ApplicationFailure } from '@temporalio/common';
import type { MarkdownReading } from '../../src/reading/markdownReading';
import type { ExtractMarkdownResult } from '../../src/operations/extractMarkdown';
import type { Effort, ObtainedPage } from '../../src/types';
import { failureOf, startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';

/**
 * The effort policy of obtainPage, through the extractMarkdown workflow: which of fetch and
 * render run, how often, and what comes back. The page activities are test doubles that
 * answer or fail as the real ones do (a ServiceError becomes an ApplicationFailure typed by
 * its code, with the HTTP status in its details; only transient statuses are retryable).
 */

const TASK_QUEUE = 'obtain-page';
const URL = 'https://news.example/story';

/** A page, a script shell, an HTTP status the server answered, or the worker lost mid-fetch. */
type Answer = 'page' | 'script shell' | 'worker lost' | number;

interface Doubles {
  fetch: Answer[];
  render: ('page' | 'crash')[];
  calls: string[];
}

let doubles: Doubles;
let tier: WorkflowTier;

const TRANSIENT = new Set([408, 425, 429, 500, 502, 503, 504]);

function obtained(content: string, needsBrowser: boolean): ObtainedPage<MarkdownReading> {
  return {
    requestedUrl: URL,
    finalUrl: URL,
    status: 200,
    contentType: 'text/html',
    bytes: 1000,
    obtainMs: 5,
    needsBrowser,
    reading: { content, metadata: { title: 'Story' } },
  };
}

/** As the fetch activity reports it: effort min's failures are final, others only when not transient. */
function httpFailure(status: number, quick: boolean): ApplicationFailure {
  return ApplicationFailure.create({
    type: 'fetch_failed',
    message: `${URL} answered HTTP ${status}`,
    nonRetryable: quick || !TRANSIENT.has(status),
    details: [{ httpStatus: status }],
  });
}

const activities = {
  async fetchPage(input: { quick?: boolean }): Promise<ObtainedPage<MarkdownReading>> {
    doubles.calls.push('fetch');
    const answer = doubles.fetch.length > 1 ? doubles.fetch.shift()! : doubles.fetch[0]!;
    if (typeof answer === 'number') throw httpFailure(answer, Boolean(input.quick));
    if (answer === 'worker lost') throw new Error('the worker running this attempt went away');
    return obtained(answer === 'page' ? '# Fetched' : 'Loading...', answer === 'script shell');
  },
  async renderPage(): Promise<ObtainedPage<MarkdownReading>> {
    doubles.calls.push('render');
    const answer = doubles.render.length > 1 ? doubles.render.shift()! : doubles.render[0]!;
    if (answer === 'crash') throw new Error('browser context crashed');
    return obtained('# Rendered', false);
  },
};

beforeAll(async () => {
  tier = await startWorkflowTier(TASK_QUEUE, activities);
  // A worker's first workflow task builds its sandbox (about a second); paid here, not by a test.
  doubles = { fetch: ['page'], render: ['page'], calls: [] };
  await extract('min');
});

afterAll(() => tier?.stop());

beforeEach(() => {
  doubles = { fetch: ['page'], render: ['page'], calls: [] };
});

function extract(effort: Effort): Promise<ExtractMarkdownResult> {
  return tier
    .start('extractMarkdown', {
      request: { url: URL, effort, content: 'main', metadata: false, nocache: false },
      queues: { fetch: TASK_QUEUE, browser: TASK_QUEUE },
    })
    .then((handle) => handle.result() as Promise<ExtractMarkdownResult>);
}

describe('effort standard', () => {
  it('returns the fetched page when a plain fetch reads it', async () => {
    expect((await extract('standard')).content).toBe('# Fetched');
    expect(doubles.calls).toEqual(['fetch']);
  });

  it('renders the page when the fetch was blocked (403), without retrying the fetch', async () => {
    doubles.fetch = [403];
    expect((await extract('standard')).content).toBe('# Rendered');
    expect(doubles.calls).toEqual(['fetch', 'render']);
  });

  it('retries a 503 with backoff three times, then renders', async () => {
    doubles.fetch = [503];
    expect((await extract('standard')).content).toBe('# Rendered');
    expect(doubles.calls).toEqual(['fetch', 'fetch', 'fetch', 'render']);
  });

  it('renders a script shell, and keeps the fetched page when rendering fails', async () => {
    doubles.fetch = ['script shell'];
    expect((await extract('standard')).content).toBe('# Rendered');
    doubles.calls = [];
    doubles.render = ['crash'];
    expect((await extract('standard')).content).toBe('Loading...');
    expect(doubles.calls).toEqual(['fetch', 'render', 'render']);
  });

  it('fails with the fetch error when the page is not found, without rendering', async () => {
    doubles.fetch = [404];
    const failure = await failureOf(extract('standard'));
    expect(failure.type).toBe('fetch_failed');
    expect(failure.message).toBe(`${URL} answered HTTP 404`);
    expect(doubles.calls).toEqual(['fetch']);
  });
});

describe('effort min', () => {
  it('never falls back to rendering: a blocked fetch fails the request', async () => {
    doubles.fetch = [403];
    expect((await failureOf(extract('min'))).type).toBe('fetch_failed');
    expect(doubles.calls).toEqual(['fetch']);
  });

  it('asks the server once, even at a transient status', async () => {
    doubles.fetch = [503];
    expect((await failureOf(extract('min'))).type).toBe('fetch_failed');
    expect(doubles.calls).toEqual(['fetch']);
  });

  it('tries again when the attempt was lost with its worker', async () => {
    doubles.fetch = ['worker lost', 'page'];
    expect((await extract('min')).content).toBe('# Fetched');
    expect(doubles.calls).toEqual(['fetch', 'fetch']);
  });

  it('returns a script shell as fetched', async () => {
    doubles.fetch = ['script shell'];
    expect((await extract('min')).content).toBe('Loading...');
    expect(doubles.calls).toEqual(['fetch']);
  });
});

describe('effort max', () => {
  it('renders without fetching', async () => {
    expect((await extract('max')).content).toBe('# Rendered');
    expect(doubles.calls).toEqual(['render']);
  });
});
