import { readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { describeDivergence } from '../../src/tools/divergence';
import { bundleServiceWorkflows, replayHistory } from '../../src/tools/replayHistory';
import { testDataConverter } from '../support/payloadKeys';
import { quietRuntime } from '../support/workflowEnvironment';

/**
 * The replay tool's core (src/tools/replayHistory.ts) on recorded histories: against the current
 * workflows it finds no divergence; against workflows changed on purpose it names the event, the
 * workflow task, what the history recorded and what the code does now.
 */

const history = (name: string) =>
  historyFromJSON(JSON.parse(readFileSync(path.resolve(__dirname, '..', 'histories', `${name}.json`), 'utf8')));

let current: WorkflowBundleWithSourceMap;
let divergent: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  quietRuntime();
  [current, divergent] = await Promise.all([
    bundleServiceWorkflows(),
    bundleServiceWorkflows(require.resolve('../support/workflows/divergent')),
  ]);
});

it('replays a recorded run against the current workflows without divergence', async () => {
  const recorded = history('extractMarkdown-standard-fetched');
  expect(await replayHistory(recorded, 'fetched', current, testDataConverter)).toEqual({
    events: recorded.events!.length,
  });
});

it('finds the event of a command for another activity, which the core does not name', async () => {
  const outcome = await replayHistory(
    history('extractMarkdown-standard-fetched'),
    'fetched',
    divergent,
    testDataConverter,
  );
  expect(outcome.divergence).toMatchObject({
    eventId: 5,
    taskCompletedAt: 4,
    recorded: "ActivityTaskScheduled, activity type 'fetchPage'",
    did: "activity type 'renderPage'",
  });
  expect(describeDivergence(outcome.divergence!)[0]).toBe(
    'diverged at event 5, in the commands of the workflow task completed at event 4',
  );
});

it('names the event where the code issues a command the history lacks', async () => {
  const recorded = history('extractJson-repair');
  const outcome = await replayHistory(recorded, 'repair', divergent, testDataConverter);
  const last = recorded.events!.at(-1)!;
  expect(outcome.divergence).toMatchObject({
    eventId: Number(last.eventId),
    recorded: 'WorkflowExecutionCompleted',
    did: 'sets search attributes',
  });
  expect(outcome.divergence!.taskCompletedAt).toBeLessThan(Number(last.eventId));
});
