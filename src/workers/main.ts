import { NativeConnection, Runtime, type Worker } from '@temporalio/worker';
import { ReadingPool } from '../reading/readingPool';
import { ConfigError, loadConfig, type Config } from '../config';
import { requirePayloadKeys } from '../temporal/payloadKeys';
import { modelProblem } from '../operations/availability';
import { runMain } from '../config/runMain';
import { createLogger, temporalLogger } from '../telemetry/logger';
import { createWorkerMetrics, type WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { freePort } from '../stack/ports';
import { connectionOptions } from '../temporal/connection';
import { createBrowserWorkers } from './browserWorker';
import { lowerCpuPriority, niceForRoles } from './cpuPriority';
import { createFetchWorkers } from './fetchWorker';
import { createModelWorkers } from './modelWorker';
import { startOpsServer } from './opsServer';
import { readSettings } from './readSettings';
import type { RoleWorkers } from './role';
import { createWorkflowWorker } from './workflowWorker';

/**
 * Worker process entry point. `WORKER_ROLES` (or the arguments) pick which tiers this process
 * runs, so one machine can run them all and a cluster can scale each tier on its own.
 */
const ROLES: Record<
  string,
  (
    connection: NativeConnection,
    config: Config,
    metrics: WorkerMetrics,
    reader: () => ReadingPool,
  ) => Promise<RoleWorkers>
> = {
  workflow: async (connection, config, metrics) => ({
    workers: [await createWorkflowWorker(connection, config, metrics)],
  }),
  fetch: createFetchWorkers,
  browser: createBrowserWorkers,
  model: createModelWorkers,
};

/** Without WORKER_ROLES: every role, the model one only when a model is configured. */
function defaultRoles(config: Config): string[] {
  return Object.keys(ROLES).filter((role) => role !== 'model' || !modelProblem(config.model));
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'worker', config.logFormat);
  const requested = (process.argv.slice(2).join(',') || process.env.WORKER_ROLES || defaultRoles(config).join(','))
    .split(',')
    .map((role) => role.trim())
    .filter(Boolean);
  const unknown = requested.filter((role) => !ROLES[role]);
  if (unknown.length > 0)
    throw new ConfigError(
      'WORKER_ROLES',
      `unknown role(s) ${unknown.join(', ')}; known: ${Object.keys(ROLES).join(', ')}`,
    );
  // Each role needs the keys only once connected; a missing key should stop the process before that.
  requirePayloadKeys(config.codec);
  // Before any thread or process is started, so that each inherits it.
  const nice = niceForRoles(requested, config.workers.pageWorkerNice);
  const unset = lowerCpuPriority(nice);
  if (unset.length > 0) logger.warn({ nice, threads: unset }, 'could not lower the CPU priority of some threads');
  // The SDK's exporter listens on loopback only: its text is served within our /metrics.
  const sdkMetricsAddress = `127.0.0.1:${await freePort()}`;
  Runtime.install({
    logger: temporalLogger(logger),
    telemetryOptions: { metrics: { prometheus: { bindAddress: sdkMetricsAddress } } },
  });
  const metrics = createWorkerMetrics();
  let workers: Worker[] = [];
  // Listening first: a port that is taken ends the start before a worker holds the connection.
  const ops = await startOpsServer({
    host: config.host,
    port: config.metrics.workerPort,
    metrics,
    sdkMetricsUrl: `http://${sdkMetricsAddress}/metrics`,
    metricsToken: config.metrics.token,
    readiness: () => ({
      ready: workers.length > 0 && workers.every((worker) => worker.getState() === 'RUNNING'),
      workers: Object.fromEntries(workers.map((worker) => [worker.options.taskQueue, worker.getState()])),
    }),
    logger,
  });
  const withCleanup = (body: () => Promise<void>, cleanup: () => Promise<unknown>) =>
    firstErrorWins(body, cleanup, (err) => logger.warn({ err }, 'cleaning up after a failed start failed too'));
  await withCleanup(async () => {
    const connection = await NativeConnection.connect(connectionOptions(config.temporal));
    // One set of conversion threads for the roles that read pages (fetch, browser), made only when one runs here.
    let pool: ReadingPool | undefined;
    const reader = () => (pool ??= new ReadingPool(config.convert, readSettings(config)));
    await withCleanup(
      async () => {
        const roles = await Promise.all(requested.map((role) => ROLES[role]!(connection, config, metrics, reader)));
        workers = roles.flatMap((role) => role.workers);
        logger.info({ roles: requested, queues: workers.map((w) => w.options.taskQueue) }, 'workers ready');
        // Runtime shuts every worker down on SIGINT/SIGTERM; run() resolves once they have drained.
        await withCleanup(
          async () => void (await Promise.all(workers.map((worker) => worker.run()))),
          () => Promise.all(roles.map((role) => role.close?.())),
        );
      },
      async () => {
        await pool?.close();
        await connection.close();
      },
    );
  }, ops.close);
}

/**
 * Runs `body`, then `cleanup`. When the body fails, its error is the one thrown: a cleanup that
 * fails after it (closing a connection that workers which never ran still hold) only follows
 * from it, and is passed to `onCleanupError`.
 */
async function firstErrorWins(
  body: () => Promise<void>,
  cleanup: () => Promise<unknown>,
  onCleanupError: (err: unknown) => void,
): Promise<void> {
  try {
    await body();
  } catch (err) {
    await cleanup().catch(onCleanupError);
    throw err;
  }
  await cleanup();
}

runMain(main);
