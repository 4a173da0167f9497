import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { activityMetrics } from '../metrics/activityMetrics';
import type { WorkerMetrics } from '../metrics/workerMetrics';
import { dataConverter } from '../payloadCodec';

/** The workers of one role in a process, and what to release once they have stopped. */
export interface RoleWorkers {
  workers: Worker[];
  close?: () => Promise<void>;
}

/**
 * A worker of this service: every role connects to the same namespace with the same payload
 * codec, and its activities are counted in the process's metrics.
 */
export function createServiceWorker(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
  options: Omit<WorkerOptions, 'connection' | 'namespace' | 'dataConverter' | 'interceptors'>,
): Promise<Worker> {
  return Worker.create({
    connection,
    namespace: config.temporal.namespace,
    dataConverter,
    interceptors: { activity: [activityMetrics(metrics)] },
    ...options,
  });
}
