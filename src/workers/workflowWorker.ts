import type { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import { createFetchActivities } from '../activities/fetchPage';
import { logCacheWriteError } from '../cache/pageCache';
import { AddressPolicy } from '../net/addressPolicy';
import { createGuardedAgent } from '../net/httpFetch';
import { nameLookup } from '../net/nameLookup';
import type { ReadingPool } from '../reading/readingPool';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { createServiceWorker } from './role';

/**
 * Runs workflow code, and the one fetch of Extract Markdown at effort `min` as a local activity
 * (README "Temporal settings for latency"): a cheap page costs less than the two task round
 * trips an activity on the fetch queue adds. That fetch reads the page on this process's own
 * conversion threads, as the fetch tier does, so a costly page never holds up a workflow task;
 * every other fetch, and every render, stays on its own tier's queue and scales there.
 */
export async function createWorkflowWorker(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
  reader: () => ReadingPool,
): Promise<Worker> {
  const policy = new AddressPolicy(config.allowInternalHosts, nameLookup(config.dnsServers));
  const { fetchPage } = createFetchActivities({
    settings: config.fetch,
    geo: config.geo,
    policy,
    agent: createGuardedAgent(policy),
    reader: reader(),
    // Only Research's readings use the result cache, and they are fetched on the fetch tier.
    onCacheWriteError: logCacheWriteError,
  });
  return createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.workflows,
    workflowsPath: require.resolve('../workflows'),
    maxConcurrentWorkflowTaskExecutions: config.workers.workflowConcurrency,
    activities: { fetchPage },
    enableNonLocalActivities: false,
    maxConcurrentLocalActivityExecutions: config.workers.fetchConcurrency,
  });
}
