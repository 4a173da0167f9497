import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { createFetchActivities } from '../activities/fetchPage';
import { AddressPolicy } from '../net/addressPolicy';
import { createGuardedAgent } from '../net/httpFetch';
import type { ReadingPool } from '../activities/readingPool';
import { createServiceWorker, type RoleWorkers } from './role';

/** The cheap tier: plain HTTP fetches, each page read (converted) in the process that downloaded it. */
export async function createFetchWorkers(
  connection: NativeConnection,
  config: Config,
  reader: () => ReadingPool,
): Promise<RoleWorkers> {
  const policy = new AddressPolicy(config.allowInternalHosts);
  const fetcher = await createServiceWorker(connection, config, {
    taskQueue: config.taskQueues.fetch,
    activities: createFetchActivities({
      settings: config.fetch,
      geo: config.geo,
      policy,
      agent: createGuardedAgent(policy),
      reader: reader(),
    }),
    maxConcurrentActivityTaskExecutions: config.workers.fetchConcurrency,
  });
  return { workers: [fetcher] };
}
