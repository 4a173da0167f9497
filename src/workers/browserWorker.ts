import type { NativeConnection } from '@temporalio/worker';
import type { Config } from '../config';
import { createRenderActivities } from '../activities/renderPage';
import { BrowserPool } from '../browser/browserPool';
import { GuardProxy } from '../browser/guardProxy';
import { AddressPolicy } from '../net/addressPolicy';
import type { ReadingPool } from '../activities/readingPool';
import { createResultCache } from '../cache/createCache';
import { createLogger } from '../logger';
import { createServiceWorker, type RoleWorkers } from './role';

/**
 * The browser tier: one Chromium per process, each page read (converted) in the process that rendered it.
 * Sized by BROWSER_CONCURRENCY.
 */
export async function createBrowserWorkers(
  connection: NativeConnection,
  config: Config,
  reader: () => ReadingPool,
): Promise<RoleWorkers> {
  const pool = new BrowserPool(config.browser);
  const policy = new AddressPolicy(config.allowInternalHosts);
  const proxy = new GuardProxy(policy);
  const logger = createLogger(config.logLevel, 'browser');
  const renderer = await createServiceWorker(connection, config, {
    taskQueue: config.taskQueues.browser,
    activities: createRenderActivities({
      pool,
      proxy,
      policy,
      settings: config.browser,
      geo: config.geo,
      userAgent: config.fetch.userAgent,
      reader: reader(),
      cache: createResultCache(config.cache),
      onCacheWriteError: (err) => logger.warn({ err }, 'cache write failed'),
    }),
    maxConcurrentActivityTaskExecutions: config.browser.concurrency,
  });
  return {
    workers: [renderer],
    close: async () => {
      await pool.close();
      await proxy.close();
    },
  };
}
