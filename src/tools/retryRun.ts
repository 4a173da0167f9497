import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { newUlid } from '../ids';
import { serviceStoreUrl } from '../billing/embeddedStore';
import { chargeRetry, type RetryCharge } from '../billing/retries';
import { Store } from '../billing/store';
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
 * a streamed operation the run id its events are read by (GET /v1/runs/{runId}/events). The retry
 * is charged before it starts, by src/billing/retries.ts: the original's price when the original
 * was refunded, else nothing.
 */

const USAGE = 'npm run retry -- <workflowId> [--run <runId>] [--force]';

/** Ends that leave nothing behind a retry could duplicate. */
const RETRYABLE: readonly WorkflowExecutionStatusName[] = ['FAILED', 'TIMED_OUT', 'TERMINATED', 'CANCELLED'];

/** Charges the retry in the service's store, if it has one. */
async function charge(original: string, client: Client, retry: { workflowId: string; expiresAt: Date }) {
  const url = serviceStoreUrl(process.env);
  if (!url) return { state: 'unbilled' } as RetryCharge;
  const store = await Store.open(url, 1);
  try {
    return await chargeRetry(store, client, original, retry);
  } finally {
    await store.close();
  }
}

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
    const ulidOfRetry = newUlid();
    const retryId = workflowIdOf(parts.organization, parts.operation, ulidOfRetry);
    const timeout = optionalTsToMs(start.workflowExecutionTimeout);
    const charged = await charge(workflowId, client, {
      workflowId: retryId,
      expiresAt: new Date(Date.now() + (timeout ?? 0)),
    });
    if (charged.state === 'insufficient')
      throw new ToolError(
        `${charged.organization} cannot pay the ${charged.credits} credits of the retry (its original was refunded): ` +
          `grant credits (npm run admin -- credits grant ${charged.organization} N) and retry again`,
      );
    const labels = runLabels(
      parts.organization,
      parts.operation,
      url,
      charged.state === 'charged' ? charged.credits : undefined,
    );
    await client.workflow.start(run.type, {
      workflowId: retryId,
      taskQueue: run.taskQueue,
      args,
      workflowExecutionTimeout: timeout,
      ...labels,
      memo: { ...labels.memo, retryOf: workflowId },
    });
    console.log(`retried ${workflowId} (run ${run.runId}, ${status.toLowerCase()}) with its original input`);
    if (charged.state === 'charged')
      console.log(
        charged.originalRefunded
          ? `charged ${charged.credits} credits to ${charged.organization}: its original was refunded`
          : `charged nothing: ${charged.organization} paid for its original`,
      );
    console.log(`new workflow id: ${retryId}`);
    if (Object.prototype.hasOwnProperty.call(STREAMED_OPERATIONS, parts.operation)) {
      const streamRunId = runIdOf(parts.operation as StreamedOperationName, ulidOfRetry);
      console.log(`run id: ${streamRunId} (GET /v1/runs/${streamRunId}/events)`);
    }
    return true;
  },
);
