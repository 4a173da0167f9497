import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { createServiceWorker } from './role';

/**
 * Whether the SDK's workflow threads record a stack for every promise a workflow makes. That is
 * what the stack trace query (the Web UI's Stack Trace tab) answers from, and it cost a fifth of
 * this worker's CPU, so it is on only with WORKFLOW_STACK_TRACES.
 */
export const PROMISE_STACKS_VARIABLE = 'TEMPORAL_WORKFLOW_PROMISE_STACKS';

/**
 * Runs workflow code only. Workflow tasks are cheap bookkeeping, so one such worker keeps up
 * with many activity workers; it scales apart from them.
 */
export async function createWorkflowWorker(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
): Promise<Worker> {
  // The SDK's workflow threads, made by Worker.create, read this (patches/@temporalio+worker+*.patch).
  process.env[PROMISE_STACKS_VARIABLE] = config.workers.workflowStackTraces ? 'on' : 'off';
  return createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.workflows,
    workflowsPath: require.resolve('../workflows'),
    maxConcurrentWorkflowTaskExecutions: config.workers.workflowConcurrency,
  });
}
