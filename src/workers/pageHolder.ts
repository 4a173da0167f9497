import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { NativeConnection, Worker } from '@temporalio/worker';
import type { Config } from '../config';
import { createConvertActivities } from '../activities/convertPage';
import { PageStore } from '../activities/pageStore';
import { createModelInputActivities } from '../activities/prepareModelInput';

/** How long a fetched page waits in memory for its conversion. */
const PAGE_TTL_MS = 5 * 60_000;

/**
 * What every process that obtains pages (by HTTP or in a browser) has: a store holding page
 * bodies, and a worker on the process's own task queue where those pages are read (into
 * Markdown, or into model input),
 * so page bodies never travel through Temporal.
 */
export interface PageHolder {
  store: PageStore;
  queue: string;
  worker: Promise<Worker>;
}

export function createPageHolder(connection: NativeConnection, config: Config, sharedQueue: string): PageHolder {
  const queue = `${sharedQueue}@${os.hostname()}-${process.pid}-${randomBytes(4).toString('hex')}`;
  const store = new PageStore(Math.max(256 * 1024 * 1024, 4 * config.fetch.maxBytes), PAGE_TTL_MS);
  const worker = Worker.create({
    connection,
    namespace: config.temporal.namespace,
    taskQueue: queue,
    activities: {
      ...createConvertActivities({ store, markdownMaxBytes: config.markdownMaxBytes }),
      ...createModelInputActivities({ store, model: config.model }),
    },
    maxConcurrentActivityTaskExecutions: config.workers.convertConcurrency,
  });
  return { store, queue, worker };
}
