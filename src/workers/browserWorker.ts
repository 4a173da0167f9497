import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import { createRenderActivities } from '../activities/renderPage';
import { BrowserPool } from '../browser/browserPool';
import { GuardProxy } from '../browser/guardProxy';
import { AddressPolicy } from '../net/addressPolicy';
import { createPageHolder } from './pageHolder';
import type { RoleWorkers } from './role';

/**
 * The browser tier: one Chromium per process, pages rendered from the shared browser queue,
 * conversions of those pages on this process's own queue. Sized by BROWSER_CONCURRENCY.
 */
export async function createBrowserWorkers(connection: NativeConnection, config: Config): Promise<RoleWorkers> {
  const holder = createPageHolder(connection, config, config.taskQueues.browser);
  const pool = new BrowserPool(config.browser);
  const policy = new AddressPolicy(config.allowInternalHosts);
  const proxy = new GuardProxy(policy);
  const renderer = Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueues.browser,
    activities: createRenderActivities({
      pool,
      proxy,
      policy,
      store: holder.store,
      settings: config.browser,
      geo: config.geo,
      userAgent: config.fetch.userAgent,
      holderQueue: holder.queue,
    }),
    maxConcurrentActivityTaskExecutions: config.browser.concurrency,
  });
  return {
    workers: await Promise.all([renderer, holder.worker]),
    close: async () => {
      await pool.close();
      await proxy.close();
    },
  };
}
