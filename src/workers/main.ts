import { NativeConnection, Runtime } from '@temporalio/worker';
import { ReadingPool } from '../activities/readingPool';
import { ConfigError, loadConfig, modelProblem, type Config } from '../config';
import { createLogger, temporalLogger } from '../logger';
import { connectionOptions } from '../temporalConnection';
import { createBrowserWorkers } from './browserWorker';
import { createFetchWorkers } from './fetchWorker';
import { createModelWorkers } from './modelWorker';
import { readSettings } from './readSettings';
import type { RoleWorkers } from './role';
import { createWorkflowWorker } from './workflowWorker';

/**
 * Worker process entry point. `WORKER_ROLES` (or the arguments) pick which tiers this process
 * runs, so one machine can run them all and a cluster can scale each tier on its own.
 */
const ROLES: Record<
  string,
  (connection: NativeConnection, config: Config, reader: () => ReadingPool) => Promise<RoleWorkers>
> = {
  workflow: async (connection, config) => ({ workers: [await createWorkflowWorker(connection, config)] }),
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
  const logger = createLogger(config.logLevel, 'worker');
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
  Runtime.install({ logger: temporalLogger(logger) });
  const connection = await NativeConnection.connect(connectionOptions(config.temporal));
  // One set of conversion threads for the roles that read pages (fetch, browser), made only when one runs here.
  let pool: ReadingPool | undefined;
  const reader = () => (pool ??= new ReadingPool(config.convert, readSettings(config)));
  try {
    const roles = await Promise.all(requested.map((role) => ROLES[role]!(connection, config, reader)));
    const workers = roles.flatMap((role) => role.workers);
    logger.info({ roles: requested, queues: workers.map((w) => w.options.taskQueue) }, 'workers ready');
    try {
      // Runtime shuts every worker down on SIGINT/SIGTERM; run() resolves once they have drained.
      await Promise.all(workers.map((worker) => worker.run()));
    } finally {
      await Promise.all(roles.map((role) => role.close?.()));
    }
  } finally {
    await pool?.close();
    await connection.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
  process.exit(1);
});
