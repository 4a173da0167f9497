import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import { createFetchActivities } from '../activities/fetchPage';
import { AddressPolicy } from '../net/addressPolicy';
import { createGuardedAgent } from '../net/httpFetch';
import { createPageHolder } from './pageHolder';
import type { RoleWorkers } from './role';

/** The cheap tier: plain HTTP fetches from the shared queue, conversions on this process's queue. */
export async function createFetchWorkers(connection: NativeConnection, config: Config): Promise<RoleWorkers> {
  const holder = createPageHolder(connection, config, config.taskQueues.fetch);
  const policy = new AddressPolicy(config.allowInternalHosts);
  const fetcher = Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueues.fetch,
    activities: createFetchActivities({ settings: config.fetch, geo: config.geo, policy, agent: createGuardedAgent(policy), store: holder.store, holderQueue: holder.queue }),
    maxConcurrentActivityTaskExecutions: config.workers.fetchConcurrency,
  });
  return { workers: await Promise.all([fetcher, holder.worker]) };
}
