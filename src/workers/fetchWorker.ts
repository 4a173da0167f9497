import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { createRobotsActivities } from '../activities/checkRobots';
import { createFetchActivities } from '../activities/fetchPage';
import { createSearchActivities } from '../activities/searchWeb';
import { logCacheWriteError } from '../cache/pageCache';
import { createResultCache } from '../cache/createCache';
import { AddressPolicy } from '../net/addressPolicy';
import { nameLookup } from '../net/nameLookup';
import { createGuardedAgent } from '../net/httpFetch';
import type { ReadingPool } from '../reading/readingPool';
import { createSearchEngine } from '../search/createSearchEngine';
import { countedCache } from '../telemetry/metrics/countedCache';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { createServiceWorker, type RoleWorkers } from './role';

/**
 * The cheap tier: plain HTTP fetches, each page read (converted) in the process that downloaded
 * it, and robots.txt checks; and, when a search engine is configured, Research's web searches,
 * network calls of the same weight, on their own queue.
 */
export async function createFetchWorkers(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
  reader: () => ReadingPool,
): Promise<RoleWorkers> {
  const policy = new AddressPolicy(config.allowInternalHosts, nameLookup(config.dnsServers));
  const agent = createGuardedAgent(policy);
  const store = createResultCache(config.cache);
  const fetcher = await createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.fetch,
    activities: {
      ...createFetchActivities({
        settings: config.fetch,
        geo: config.geo,
        policy,
        agent,
        reader: reader(),
        cache: store && countedCache(store, metrics.cacheLookups),
        onCacheWriteError: logCacheWriteError,
      }),
      ...createRobotsActivities({ settings: config.fetch, policy, agent }),
    },
    maxConcurrentActivityTaskExecutions: config.workers.fetchConcurrency,
  });
  const engine = createSearchEngine(config.research.search);
  if (!engine) return { workers: [fetcher] };
  const searcher = await createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.search,
    activities: createSearchActivities(engine),
    maxConcurrentActivityTaskExecutions: config.workers.fetchConcurrency,
  });
  return { workers: [fetcher, searcher] };
}
