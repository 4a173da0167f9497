import { Runtime, DefaultLogger, Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { WorkflowFailedError, type WorkflowHandle } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import { bundleServiceWorkflows } from '../../src/tools/replayHistory';
import { listEventsQuery, type RecordedEvent } from '../../src/events/messages';
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

/** Starts of the test server before a file gives up: the JVM's start is what times out. */
const SERVER_STARTS = 3;

/**
 * The SDK gives the test server's JVM five seconds to answer (sdk-core's ephemeral_server, not a
 * setting); on a machine whose two cores also run the e2e stacks it once took longer, and every
 * test of the file failed. Another start then finds the JVM's files in the page cache.
 */
async function createTimeSkipping(path: string): Promise<TestWorkflowEnvironment> {
  for (let start = 1; ; start++) {
    try {
      return await TestWorkflowEnvironment.createTimeSkipping({
        server: { executable: { type: 'existing-path', path } },
        client: { dataConverter },
      });
    } catch (err) {
      if (start === SERVER_STARTS || !/did not start within/.test(String(err))) throw err;
      console.warn(
        `Temporal's test server did not start in time (start ${start} of ${SERVER_STARTS}); starting it again`,
      );
    }
  }
}

async function startTimeSkippingEnvironment(): Promise<TestWorkflowEnvironment> {
  const path = process.env.TEST_TEMPORAL_TEST_SERVER;
  if (!path)
    throw new Error(
      'TEST_TEMPORAL_TEST_SERVER is not set: workflow tests run under the workflow project (npm run test:workflow)',
    );
  quietRuntime();
  const env = await createTimeSkipping(path);
  // Workflows set the service's search attributes, which the server refuses unless registered.
  // The test server can add them but not list them, so they are added as they are.
  await env.connection.operatorService.addSearchAttributes({
    namespace: env.namespace ?? 'default',
    searchAttributes: indexedSearchAttributes(),
  });
  return env;
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
  /**
   * Starts `workflowType` with one argument on the tier's task queue, under a fresh id unless given
   * one (Automate reads its run's ULID from the end of its id, as the API makes it).
   */
  start(workflowType: string, input: unknown, workflowId?: string): Promise<WorkflowHandle>;
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
    const workflowBundle = await bundleServiceWorkflows().finally(async () => {
      env = await starting;
    });
    worker = await startWorker(env!, taskQueue, workflowBundle, activities);
    const started = env!;
    const start = (
      workflowType: string,
      input: unknown,
      workflowId = `${workflowType}-${Math.random().toString(36).slice(2)}`,
    ) => started.client.workflow.start(workflowType, { taskQueue, workflowId, args: [input] });
    return { env: started, start, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * The cause of a failed run. Plain checks, not Jest's `expect`: test/support is also compiled for
 * the tools (npm run build:tools), which have no Jest globals.
 */
function runFailure(err: unknown): Error | undefined {
  if (!(err instanceof WorkflowFailedError)) {
    throw new Error(`expected the run to fail; it ${err === undefined ? 'succeeded' : `threw ${String(err)}`}`);
  }
  return err.cause;
}

/**
 * The ApplicationFailure a run ended with: the workflow's own, or the activity's when the workflow
 * let an ActivityFailure through (the API reads the type the same way). Fails the test when the
 * run succeeded.
 */
export async function failureOf(run: Promise<unknown>): Promise<ApplicationFailure> {
  const err = await run.then(
    () => undefined,
    (e: unknown) => e,
  );
  const cause = runFailure(err);
  const failure = cause instanceof ActivityFailure ? cause.cause : cause;
  if (!(failure instanceof ApplicationFailure))
    throw new Error(`the run failed with ${String(failure)}, not an ApplicationFailure`);
  return failure;
}

/** Every event a run has recorded so far, read page by page as the API reads them. */
export async function recordedEvents(handle: WorkflowHandle): Promise<RecordedEvent[]> {
  const events: RecordedEvent[] = [];
  for (
    let result = await handle.query(listEventsQuery, { after: 0 });
    result.events.length > 0;
    result = await handle.query(listEventsQuery, { after: events.at(-1)!.id })
  ) {
    events.push(...result.events);
  }
  return events;
}

/**
 * Runs an agent workflow to its end: its events, and the failure when it failed (the agent
 * workflows end with an ApplicationFailure of their own, never an activity's).
 */
export async function finished(
  handle: WorkflowHandle,
): Promise<{ events: RecordedEvent[]; failure?: ApplicationFailure }> {
  const failure = await handle.result().then(
    () => undefined,
    (err: unknown) => runFailure(err) as ApplicationFailure,
  );
  return { events: await recordedEvents(handle), failure };
}
