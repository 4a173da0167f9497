import type { WorkflowHandle } from '@temporalio/client';
import { PROMISE_STACKS_VARIABLE } from '../../src/workers/workflowWorker';
import { eventually } from '../support/eventually';
import { startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';

/**
 * The stack trace query (the Web UI's Stack Trace tab) of a run waiting on its fetch: answered
 * from the promise stacks the SDK's workflow threads record only when the workflow worker sets
 * PROMISE_STACKS_VARIABLE on (WORKFLOW_STACK_TRACES; patches/@temporalio+worker+*.patch).
 */

const TASK_QUEUE = 'stack-traces';

/** Fetches that wait until the test lets them answer. */
let release: () => void = () => undefined;
const activities = {
  async fetchPage() {
    await new Promise<void>((resolve) => (release = resolve));
    throw new Error('released');
  },
  async renderPage() {
    throw new Error('not called');
  },
};

async function waitingRun(tier: WorkflowTier): Promise<WorkflowHandle> {
  const handle = await tier.start('extractMarkdown', {
    request: { url: 'https://news.example/story', effort: 'min', content: 'main', metadata: false, nocache: false },
    queues: { fetch: TASK_QUEUE, browser: TASK_QUEUE },
  });
  await eventually(
    async () => (await handle.fetchHistory()).events?.some((event) => event.activityTaskScheduledEventAttributes),
    { what: 'the run to schedule its fetch', timeoutMs: 30_000 },
  );
  return handle;
}

/** The plain trace, and the enhanced one's stacks (what the Web UI asks for). */
async function stackTraceWith(setting: 'on' | 'off'): Promise<{ trace: string; stacks: unknown[] }> {
  const before = process.env[PROMISE_STACKS_VARIABLE];
  process.env[PROMISE_STACKS_VARIABLE] = setting;
  // The worker's workflow threads take the environment as it is when the worker is made.
  const tier = await startWorkflowTier(TASK_QUEUE, activities).finally(() => {
    if (before === undefined) delete process.env[PROMISE_STACKS_VARIABLE];
    else process.env[PROMISE_STACKS_VARIABLE] = before;
  });
  try {
    const handle = await waitingRun(tier);
    const trace = await handle.query<string>('__stack_trace');
    const { stacks } = await handle.query<{ stacks: unknown[] }>('__enhanced_stack_trace');
    await handle.terminate();
    release();
    return { trace, stacks };
  } finally {
    await tier.stop();
  }
}

it('shows where a waiting run is when stack traces are on', async () => {
  const { trace, stacks } = await stackTraceWith('on');
  expect(trace).toMatch(/at obtainPageFacts \(.*src\/workflows\/obtainPage\.ts:\d+/);
  expect(stacks.length).toBeGreaterThan(0);
});

it('answers with no stacks, rather than failing the query, when they are off', async () => {
  expect(await stackTraceWith('off')).toEqual({ trace: '', stacks: [] });
});
