import { DefaultLogger, Runtime } from '@temporalio/worker';
import { describeDivergence } from './divergence';
import { readToolArgs, runTool } from './cli';
import { bundleServiceWorkflows, replayHistory } from './replayHistory';

/**
 * `npm run replay -- <workflowId> [--run <runId>]`: fetches a run's history (the latest run of
 * the workflow id unless told which) and replays it against the workflow code of this checkout,
 * with the service's data converter. Says "no divergence", or where the code parts from the
 * history: exit code 0 or 1. Before a deploy, it shows whether runs in progress would carry on.
 */

const USAGE = 'npm run replay -- <workflowId> [--run <runId>]';

// The SDK's core logs each failing workflow task of a replay; the report below says it better.
Runtime.install({
  logger: new DefaultLogger('ERROR'),
  telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
});

void runTool(
  () => readToolArgs(process.argv.slice(2), USAGE),
  async (client, { workflowId, runId }) => {
    const run = await client.workflow.getHandle(workflowId, runId).describe();
    const [history, bundle] = await Promise.all([
      client.workflow.getHandle(workflowId, run.runId).fetchHistory(),
      bundleServiceWorkflows(),
    ]);
    console.log(`${workflowId}, run ${run.runId} (${run.type}, ${run.status.name.toLowerCase()})`);
    const outcome = await replayHistory(history, workflowId, bundle, client.options.dataConverter);
    if (outcome.error) {
      console.log(`replayed ${outcome.events} events: the replay failed: ${outcome.error}`);
      return false;
    }
    if (outcome.divergence) {
      const [first, ...rest] = describeDivergence(outcome.divergence);
      console.log([`replayed ${outcome.events} events: ${first}`, ...rest].join('\n'));
      return false;
    }
    console.log(`replayed ${outcome.events} events: no divergence`);
    return true;
  },
);
