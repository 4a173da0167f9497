import { Context } from '@temporalio/activity';
import type { ResearchReply } from '../../src/activities/researchModel';
import type { SearchWebInput, SearchWebResult } from '../../src/activities/searchWeb';
import { parseResearchRequest, researchInput } from '../../src/api/routes/research';
import { loadConfig, type Config } from '../../src/config';
import type { Plan } from '../../src/prompts/research.v1';
import type { ResearchReading } from '../../src/reading/researchReading';
import type { ObtainedPage } from '../../src/types';
import type { ResearchInput } from '../../src/workflows';
import { startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';

/**
 * A request's own limits and the settings' limits, against the start-to-close timeout each
 * activity is scheduled with: a research run's input is built as the API builds it, and every
 * activity double reports the timeout its attempt was given.
 */

const TASK_QUEUE = 'activity-limits';

let tier: WorkflowTier;
/** Each activity's start-to-close timeout, by activity type. */
let given: Record<string, number>;

function note(): void {
  const { activityType, startToCloseTimeoutMs } = Context.current().info;
  given[activityType] = startToCloseTimeoutMs;
}

const reply = <T>(value: T): ResearchReply<T> => ({
  value,
  usage: { prompt: 1, completion: 1, total: 2 },
  model: 'double-model',
  promptVersion: 'research/v1',
});

const activities = {
  async planResearch(): Promise<ResearchReply<Plan>> {
    note();
    return reply({
      objective: 'Know the harbour',
      plan: 'Read',
      complexity: 'simple',
      questions: ['Who built it?'],
      queries: ['harbour builder'],
    });
  },
  async searchWeb(input: SearchWebInput): Promise<SearchWebResult> {
    note();
    return { engine: 'double', hits: [{ url: `https://site.example/${input.count}`, title: 'Harbour', snippet: '' }] };
  },
  async checkRobots(input: { urls: string[] }): Promise<{ allowed: string[]; blocked: string[] }> {
    note();
    return { allowed: input.urls, blocked: [] };
  },
  async fetchPage(input: { url: string }): Promise<ObtainedPage<ResearchReading>> {
    note();
    return {
      requestedUrl: input.url,
      finalUrl: input.url,
      status: 200,
      contentType: 'text/html',
      bytes: 100,
      obtainMs: 1,
      needsBrowser: false,
      reading: { content: 'The harbour was built long ago.', metadata: { title: 'Harbour' }, links: [] },
    };
  },
  async writeAnswer(): Promise<ResearchReply<{ report: string }>> {
    note();
    return reply({ report: 'Built long ago [1].' });
  },
};

beforeAll(async () => {
  tier = await startWorkflowTier(TASK_QUEUE, activities);
});

afterAll(() => tier?.stop());

/** Runs a fast research as the API would start it, every activity on the test's queue. */
async function research(config: Config, body: Record<string, unknown>): Promise<void> {
  given = {};
  const input: ResearchInput = {
    ...researchInput(config, parseResearchRequest({ query: 'Who built the harbour?', ...body }), 'org'),
    queues: { fetch: TASK_QUEUE, browser: TASK_QUEUE, model: TASK_QUEUE, search: TASK_QUEUE },
  };
  await tier.env.client.workflow.execute('research', {
    taskQueue: TASK_QUEUE,
    workflowId: `limits-${Math.random().toString(36).slice(2)}`,
    args: [input],
  });
}

const engine = { SEARXNG_URL: 'http://127.0.0.1:8888' };

describe('activity limits', () => {
  it("gives a page fetch time for the request's fetch_timeout and the reading after it", async () => {
    const config = loadConfig(engine);
    await research(config, { fetch_timeout: 60 });
    expect(given.fetchPage).toBeGreaterThanOrEqual(60_000 + config.convert.timeoutMs);
  });

  it('gives a search time for the longest SEARCH_TIMEOUT_MS the service accepts', async () => {
    const config = loadConfig({ ...engine, SEARCH_TIMEOUT_MS: '120000' });
    await research(config, {});
    expect(given.searchWeb).toBeGreaterThan(120_000);
  });
});
