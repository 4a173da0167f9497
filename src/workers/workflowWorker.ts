import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { createServiceWorker } from './role';

/**
 * Runs workflow code only. Workflow tasks are cheap bookkeeping, so one such worker keeps up
 * with many activity workers; it scales apart from them.
 */
export async function createWorkflowWorker(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
): Promise<Worker> {
  return createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.workflows,
    workflowsPath: require.resolve('../workflows'),
    maxConcurrentWorkflowTaskExecutions: config.workers.workflowConcurrency,
  });
}
