import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import type { Config } from '../config';
import { requirePayloadKeys } from '../temporal/payloadKeys';
import { activityMetrics } from '../telemetry/metrics/activityMetrics';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { serviceDataConverter } from '../temporal/payloadCodec';

/**
 * After the grace period, activities still running are cancelled; this long after that, a worker
 * whose activities ignore cancellation stops anyway (and its process exits with an error).
 */
const FORCE_AFTER_GRACE_MS = 10_000;

/** The workers of one role in a process, and what to release once they have stopped. */
export interface RoleWorkers {
  workers: Worker[];
  close?: () => Promise<void>;
}

/**
 * A worker of this service: every role connects to the same namespace with the same payload
 * codec, and its activities are counted in the process's metrics. On SIGTERM it stops polling
 * and gives the activities it holds SHUTDOWN_GRACE_MS to finish; those still running are then
 * cancelled, and Temporal retries them on another worker.
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
    dataConverter: serviceDataConverter(requirePayloadKeys(config.codec)),
    interceptors: { activity: [activityMetrics(metrics)] },
    shutdownGraceTime: config.shutdownGraceMs,
    shutdownForceTime: config.shutdownGraceMs + FORCE_AFTER_GRACE_MS,
    ...options,
  });
}
