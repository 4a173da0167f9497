import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { createSessionOpening, createSessionSteps } from '../activities/sessionActivities';
import { createRenderActivities } from '../activities/renderPage';
import { BrowserPool } from '../browser/browserPool';
import { BrowserSessions } from '../browser/browserSessions';
import { GuardProxy } from '../browser/guardProxy';
import { AddressPolicy } from '../net/addressPolicy';
import { nameLookup } from '../net/nameLookup';
import type { ReadingPool } from '../reading/readingPool';
import { logCacheWriteError } from '../cache/pageCache';
import { createResultCache } from '../cache/createCache';
import { countedCache } from '../telemetry/metrics/countedCache';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { createServiceWorker, type RoleWorkers } from './role';

/**
 * The browser tier: one Chromium per process, each page read (converted) in the process that rendered it.
 * Sized by BROWSER_CONCURRENCY (renders) and BROWSER_SESSIONS (Automate sessions).
 *
 * An Automate session lives in one process's browser, so its steps must come back to that
 * process: the session is opened from the shared queue, and its later steps go to a queue only
 * this process polls (Temporal's worker-specific task queues). A process that dies takes its
 * sessions with it; nothing else polls its queue.
 */
export async function createBrowserWorkers(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
  reader: () => ReadingPool,
): Promise<RoleWorkers> {
  const pool = new BrowserPool(config.browser, metrics.browserContexts);
  const store = createResultCache(config.cache);
  const policy = new AddressPolicy(config.allowInternalHosts, nameLookup(config.dnsServers));
  const proxy = new GuardProxy(policy);
  const sessions = new BrowserSessions(pool, proxy, config.browser.sessions);
  const sessionQueue = `${config.taskQueues.browser}-session-${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const sessionDeps = {
    sessions,
    policy,
    geo: config.geo,
    userAgent: config.fetch.userAgent,
    reader: reader(),
    queue: sessionQueue,
  };
  const renderer = await createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.browser,
    activities: {
      ...createRenderActivities({
        pool,
        proxy,
        policy,
        settings: config.browser,
        geo: config.geo,
        userAgent: config.fetch.userAgent,
        reader: reader(),
        cache: store && countedCache(store, metrics.cacheLookups),
        onCacheWriteError: logCacheWriteError,
      }),
      ...createSessionOpening(sessionDeps),
    },
    maxConcurrentActivityTaskExecutions: config.browser.concurrency,
  });
  const sessionSteps = await createServiceWorker(connection, config, metrics, {
    taskQueue: sessionQueue,
    activities: createSessionSteps(sessionDeps),
    // A step and the close of each session, at most.
    maxConcurrentActivityTaskExecutions: config.browser.sessions * 2,
  });
  return {
    workers: [renderer, sessionSteps],
    close: async () => {
      await sessions.closeAll();
      await pool.close();
      await proxy.close();
    },
  };
}
