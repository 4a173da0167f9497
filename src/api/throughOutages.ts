import { setTimeout as sleep } from 'node:timers/promises';
import {
  isGrpcServiceError,
  isRetryableError,
  ServiceError as TemporalServiceError,
  WorkflowExecutionAlreadyStartedError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { WorkflowResultType } from '@temporalio/common';
import type { Workflow } from '@temporalio/workflow';

/** Between our own attempts; each attempt has already retried for about 20 s inside the client. */
const PAUSE_MS = 1_000;

/** Temporal could not be reached (or dropped the call), as opposed to Temporal answering. */
export function isConnectionFailure(err: unknown): boolean {
  const cause = err instanceof TemporalServiceError ? err.cause : err;
  return isGrpcServiceError(cause) && isRetryableError(cause);
}

async function throughOutages<T>(
  call: (retry: boolean) => Promise<T>,
  deadline: number,
  onOutage: (err: unknown) => void,
): Promise<T> {
  for (let retry = false; ; retry = true) {
    try {
      return await call(retry);
    } catch (err) {
      if (!isConnectionFailure(err) || Date.now() + PAUSE_MS >= deadline) throw err;
      onOutage(err);
      await sleep(PAUSE_MS);
    }
  }
}

/**
 * Starts a workflow, riding out a Temporal server that cannot be reached for a while (restarting
 * after a crash, a dropped connection). The client retries a failed call for about 20 s, then
 * throws; here such failures are tried again until `deadline`, past which the run could not be
 * going on anyway. The run's id is unique to the request and may not be reused, so a start tried
 * again never makes a second run: if the id is taken, the earlier attempt got through before the
 * connection broke. Resolves with the run id, unknown (undefined) in that case.
 */
export async function startThroughOutages<W extends Workflow>(
  client: Client,
  workflow: W | string,
  options: WorkflowStartOptions<W>,
  deadline: number,
  onOutage: (err: unknown) => void,
): Promise<string | undefined> {
  const start = { ...options, workflowIdReusePolicy: 'REJECT_DUPLICATE' } as WorkflowStartOptions<W>;
  return throughOutages(
    async (retry) => {
      try {
        return (await client.workflow.start(workflow, start)).firstExecutionRunId;
      } catch (err) {
        if (!(retry && err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
        return undefined;
      }
    },
    deadline,
    onOutage,
  );
}

/** Waits for a run's result the same way, through outages, until `deadline`. */
export function resultThroughOutages<W extends Workflow>(
  client: Client,
  workflowId: string,
  deadline: number,
  onOutage: (err: unknown) => void,
): Promise<WorkflowResultType<W>> {
  return throughOutages(() => client.workflow.getHandle<W>(workflowId).result(), deadline, onOutage);
}
