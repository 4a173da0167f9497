import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import { createConvertActivities } from '../activities/convertPage';
import { createFetchActivities } from '../activities/fetchPage';
import { PageStore } from '../activities/pageStore';
import { AddressPolicy } from '../net/addressPolicy';
import { createGuardedAgent } from '../net/httpFetch';

/** How long a fetched page waits in memory for its conversion. */
const PAGE_TTL_MS = 5 * 60_000;

/**
 * The cheap fetch-and-convert tier. Two workers share one process: one takes fetches from
 * the shared queue; the other listens on this process's own queue, where conversions of the
 * pages this process holds are sent, so page bodies never travel through Temporal.
 */
export async function createFetchWorkers(connection: NativeConnection, config: Config): Promise<Worker[]> {
  const holderQueue = `${config.taskQueues.fetch}@${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const store = new PageStore(Math.max(256 * 1024 * 1024, 4 * config.fetch.maxBytes), PAGE_TTL_MS);
  const policy = new AddressPolicy(config.allowInternalHosts);
  const fetchActivities = createFetchActivities({
    settings: config.fetch,
    policy,
    agent: createGuardedAgent(policy),
    store,
    holderQueue,
  });
  const convertActivities = createConvertActivities({ store, markdownMaxBytes: config.markdownMaxBytes });
  const common = { connection, namespace: config.temporal.namespace };
  return Promise.all([
    Worker.create({
      ...common,
      taskQueue: config.taskQueues.fetch,
      activities: fetchActivities,
      maxConcurrentActivityTaskExecutions: config.workers.fetchConcurrency,
    }),
    Worker.create({
      ...common,
      taskQueue: holderQueue,
      activities: convertActivities,
      maxConcurrentActivityTaskExecutions: config.workers.convertConcurrency,
    }),
  ]);
}
