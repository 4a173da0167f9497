import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { ulid } from 'ulid';
import {
  parseWorkflowId,
  runIdOf,
  STREAMED_OPERATIONS,
  workflowIdOf,
  type StreamedOperationName,
} from '../events/streams';
import { runLabels } from '../temporal/runLabels';
import { readToolArgs, runTool, ToolError } from './cli';

/**
 * `npm run retry -- <workflowId> [--run <runId>] [--force]`: starts a run's workflow again with
 * its original input, under a new workflow id of the same form, on the same task queue, with the
 * same time limit and search attributes. For runs that failed, timed out, were cancelled or
 * terminated; a running or completed run only with --force. Prints the new workflow id, and for
 * a streamed operation the run id its events are read by (GET /v1/runs/{runId}/events).
 */

const USAGE = 'npm run retry -- <workflowId> [--run <runId>] [--force]';

/** Ends that leave nothing behind a retry could duplicate. */
const RETRYABLE: readonly WorkflowExecutionStatusName[] = ['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELLED'];

/** The request the run was started with: the first event of the first run of its chain. */
async function originalStart(client: Client, workflowId: string, runId: string) {
  const startOf = async (run: string) => {
    const history = await client.workflow.getHandle(workflowId, run).fetchHistory();
    const attributes = history.events?.[0]?.workflowExecutionStartedEventAttributes;
    if (!attributes) throw new ToolError(`run ${run} of ${workflowId} has no start event`);
    return attributes;
  };
  const start = await startOf(runId);
  // A run continued as new was started with its predecessor's state, not the request.
  return start.continuedExecutionRunId && start.firstExecutionRunId ? startOf(start.firstExecutionRunId) : start;
}

void runTool(
  () => readToolArgs(process.argv.slice(2), USAGE, true),
  async (client, { workflowId, runId, force }) => {
    const parts = parseWorkflowId(workflowId);
    if (!parts) throw new ToolError(`${workflowId} is not a webloom run id (<organization>/<operation>/<ulid>)`);
    const run = await client.workflow.getHandle(workflowId, runId).describe();
    const status = run.status.name;
    if (!RETRYABLE.includes(status) && !force) {
      const why = status === 'RUNNING' ? 'is still running' : `ended as ${status.toLowerCase()}`;
      throw new ToolError(
        `${workflowId} ${why}: retrying it would run it twice. Pass --force to start it again anyway.`,
      );
    }
    const start = await originalStart(client, workflowId, run.runId);
    const args = await decodeArrayFromPayloads(client.options.loadedDataConverter, start.input?.payloads);
    const url = typeof run.memo?.url === 'string' ? run.memo.url : undefined;
    const labels = runLabels(parts.organization, parts.operation, url);
    const ulidOfRetry = ulid();
    const retryId = workflowIdOf(parts.organization, parts.operation, ulidOfRetry);
    await client.workflow.start(run.type, {
      workflowId: retryId,
      taskQueue: run.taskQueue,
      args,
      workflowExecutionTimeout: optionalTsToMs(start.workflowExecutionTimeout),
      ...labels,
      memo: { ...labels.memo, retryOf: workflowId },
    });
    console.log(`retried ${workflowId} (run ${run.runId}, ${status.toLowerCase()}) with its original input`);
    console.log(`new workflow id: ${retryId}`);
    if (Object.prototype.hasOwnProperty.call(STREAMED_OPERATIONS, parts.operation)) {
      const streamRunId = runIdOf(parts.operation as StreamedOperationName, ulidOfRetry);
      console.log(`run id: ${streamRunId} (GET /v1/runs/${streamRunId}/events)`);
    }
    return true;
  },
);
