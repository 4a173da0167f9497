import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { historyFromJSON } from '@temporalio/common/lib/proto-utils';
import { Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import * as workflows from '../../src/workflows';
import { testDataConverter } from '../support/payloadKeys';
import { bundleServiceWorkflows } from '../../src/tools/replayHistory';
import { quietRuntime } from '../support/workflowEnvironment';

/**
 * Determinism: every history in test/histories/ (real runs, recorded by `npm run
 * histories:record`) replays against the current workflow code. A change that would make a
 * running workflow take another path on replay fails here, not in production.
 */

const HISTORIES = path.resolve(__dirname, '..', 'histories');

const histories = readdirSync(HISTORIES)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({
    workflowId: file.replace(/\.json$/, ''),
    history: historyFromJSON(JSON.parse(readFileSync(path.join(HISTORIES, file), 'utf8'))),
  }));

let workflowBundle: WorkflowBundleWithSourceMap;

beforeAll(async () => {
  quietRuntime();
  workflowBundle = await bundleServiceWorkflows();
});

it('has a recorded history of every workflow type', () => {
  const recorded = new Set(
    histories.map(({ history }) => history.events?.[0]?.workflowExecutionStartedEventAttributes?.workflowType?.name),
  );
  expect([...recorded].sort()).toEqual(Object.keys(workflows).sort());
});

it('replays every recorded history against the current workflow code', async () => {
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories(
    { workflowBundle, dataConverter: testDataConverter },
    histories,
  )) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
  }
  expect(failures).toEqual([]);
});
