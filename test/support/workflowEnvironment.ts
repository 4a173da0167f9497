import {
  Runtime,
  DefaultLogger,
  Worker,
  bundleWorkflowCode,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { FAILURE_CONVERTER_PATH } from '../../src/temporal/payloadCodec';
import { indexedSearchAttributes } from '../../src/temporal/registerSearchAttributes';
import { testDataConverter as dataConverter } from './payloadKeys';

/**
 * For workflow tests: the real workflow code against Temporal's time-skipping test server, with
 * activities replaced by test doubles. A workflow waiting on a timer or a retry backoff skips
 * ahead whenever nothing else is running, so minutes of workflow time take milliseconds.
 */

let runtimeInstalled = false;

/** Errors only: the SDK logs every worker start at INFO, and every activity a test double fails at WARN. */
export function quietRuntime(): void {
  if (runtimeInstalled) return;
  Runtime.install({
    logger: new DefaultLogger('ERROR'),
    telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } },
  });
  runtimeInstalled = true;
}

async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEST_TEMPORAL_TEST_SERVER;
  if (!path)
    throw new Error(
      'TEST_TEMPORAL_TEST_SERVER is not set: workflow tests run under the workflow project (npm run test:workflow)',
    );
  quietRuntime();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path } },
    client: { dataConverter },
  });
  // Workflows set the service's search attributes, which the server refuses unless registered.
  // The test server can add them but not list them, so they are added as they are.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: indexedSearchAttributes(),
  });
  return env;
}

/** The service's workflows, bundled once per test file as the workflow worker bundles them. */
export function bundleWorkflows(): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath: require.resolve('../../src/workflows'),
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  });
}

/** A worker running the workflows and the given activities on one task queue, until `stop`. */
async function startWorker(
  env: TestWorkflowEnvironment,
  taskQueue: string,
  workflowBundle: WorkflowBundleWithSourceMap,
  activities: object,
): Promise<{ stop(): Promise<void> }> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle,
    activities,
    dataConverter,
  });
  const running = worker.run();
  return {
    async stop() {
      worker.shutdown();
      await running;
    },
  };
}

/** A test server with a worker running the service's workflows beside test-double activities. */
export interface WorkflowTier {
  env: TestWorkflowEnvironment;
  /** Stops the worker and the server; safe after a start that failed halfway. */
  stop(): Promise<void>;
}

/** Starts the test server, bundles the workflows meanwhile, and runs a worker with `activities` on `taskQueue`. */
export async function startWorkflowTier(taskQueue: string, activities: object): Promise<WorkflowTier> {
  const starting = startTimeSkippingEnvironment();
  let env: TestWorkflowEnvironment | undefined;
  let worker: { stop(): Promise<void> } | undefined;
  const stop = async () => {
    await worker?.stop();
    await env?.teardown();
  };
  try {
    const workflowBundle = await bundleWorkflows().finally(async () => {
      env = await starting;
    });
    worker = await startWorker(env!, taskQueue, workflowBundle, activities);
    return { env: env!, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
