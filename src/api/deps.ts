import type { Client } from '@temporalio/client';
import type { WorkflowResultType } from '@temporalio/common';
import type { Workflow } from '@temporalio/workflow';
import type { Context } from 'koa';
import { StoreBilling, unbilled, type Billing } from '../billing/billing';
import type { Store } from '../billing/store';
import { createResultCache } from '../cache/createCache';
import type { ResultCache } from '../cache/resultCache';
import { WriteBehindCache } from '../cache/writeBehindCache';
import type { Config } from '../config';
import { AddressPolicy } from '../net/addressPolicy';
import { limitBackend } from '../limits/backend';
import { RateLimits } from '../limits/rateLimits';
import { nameLookup } from '../net/nameLookup';
import type { Logger } from '../telemetry/logger';
import { countedCache } from '../telemetry/metrics/countedCache';
import { createApiMetrics, type ApiMetrics } from '../telemetry/metrics/apiMetrics';
import { createStreamedRuns, type StreamedRuns } from './events/streamedRuns';
import { neededQueues, Readiness } from './readiness';
import { createRunStarter, type RunOptions } from './runStarter';

export interface ApiDeps extends StreamedRuns {
  config: Config;
  /** For messages to running workflows (answers to automate input requests). */
  client: Client;
  policy: AddressPolicy;
  cache?: ResultCache;
  metrics: ApiMetrics;
  readiness: Readiness;
  /** Keys, credits and refunds: the store's, or API_KEYS alone when there is none. */
  billing: Billing;
  /** Requests per minute and runs in flight per organization, and failed authentications per address. */
  rateLimits: RateLimits;
  /**
   * Starts one workflow for the request and waits for its result, through Temporal outages,
   * until the run's timeout.
   */
  runWorkflow<W extends Workflow>(
    ctx: Context,
    operation: string,
    workflow: W,
    options: RunOptions<W>,
  ): Promise<WorkflowResultType<W>>;
}

export function createApiDeps(config: Config, client: Client, logger: Logger, billingStore?: Store): ApiDeps {
  const store = createResultCache(config.cache);
  // Read at each scrape, by then long after `streams` is made.
  const metrics = createApiMetrics(() => streams.openStreams());
  const billing = billingStore
    ? new StoreBilling(
        billingStore,
        config.billing,
        client,
        { charged: metrics.creditsCharged, refunded: metrics.creditsRefunded },
        logger,
      )
    : unbilled(config.apiKeys);
  const runs = createRunStarter(config, client, logger, metrics.runsStarted, billing);
  const streams = createStreamedRuns(config, client, runs, logger, metrics.eventRelaySeconds);
  const backend = limitBackend(config.cache.redisUrl, billingStore?.pool);
  const rateLimits = new RateLimits(config.rateLimits, backend, billingStore, client, logger);
  // A slot before the run is charged or started; held until the run ends, however its events are read.
  const inStreamSlot = async <T>(ctx: Context, start: () => Promise<T>): Promise<T> => {
    const slot = await rateLimits.takeStreamSlot(ctx.state.organization!);
    let started: T;
    try {
      started = await start();
    } catch (err) {
      slot.release();
      throw err;
    }
    slot.hold(ctx.state.workflowId!);
    return started;
  };
  return {
    ...streams,
    streamWorkflow: (ctx, operation, workflow, options) =>
      inStreamSlot(ctx, () => streams.streamWorkflow(ctx, operation, workflow, options)),
    followWorkflow: (ctx, operation, workflow, options) =>
      inStreamSlot(ctx, () => streams.followWorkflow(ctx, operation, workflow, options)),
    rateLimits,
    config,
    client,
    metrics,
    billing,
    readiness: new Readiness(client, config.temporal.namespace, neededQueues(config), logger),
    policy: new AddressPolicy(config.allowInternalHosts, nameLookup(config.dnsServers)),
    cache:
      store &&
      new WriteBehindCache(
        countedCache(store, metrics.cacheLookups),
        (err) => logger.warn({ err }, 'cache write failed'),
        // Files are shared by the processes of one host, where `npm start` runs one API.
        !config.cache.redisUrl,
      ),
    async runWorkflow(ctx, operation, workflow, options) {
      return runs.result(await runs.start(ctx, operation, workflow, options));
    },
  };
}

/**
 * Stops what the dependencies keep running (the stream-slot watch, billing's sweeps, their store
 * and Redis clients), the watch first: it asks Temporal about runs, so it must end before the
 * caller closes its Temporal connection.
 */
export async function closeApiDeps(deps: Pick<ApiDeps, 'rateLimits' | 'billing'>): Promise<void> {
  await deps.rateLimits.close();
  await deps.billing.close();
}
