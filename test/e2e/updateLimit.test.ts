import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { createApp } from '../../src/api/app';
import { closeApiDeps, createApiDeps, type ApiDeps } from '../../src/api/deps';
import type { ApiState } from '../../src/api/state';
import { loadConfig } from '../../src/config';
import type { Child } from '../../src/stack/children';
import { startDevServer } from '../../src/stack/devServer';
import { freePort } from '../../src/stack/ports';
import { findTemporalCli } from '../../src/stack/temporalCli';
import { createLogger } from '../../src/telemetry/logger';
import { apiKey } from '../support/api';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { SseStream } from '../support/sseClient';
import type { ScriptedEventsInput, ScriptStep } from '../support/workflows/scriptedEvents';

/**
 * Every read of a run's events is one Temporal Update, and the server takes a bounded number
 * per run (`history.maxTotalUpdates`, 2,000 by default). Each API process reads a run once,
 * but every client that comes back to a process no longer reading it costs a new reader, so
 * clients decide the count. Here a dev server of this file's own takes 30, two API processes
 * run in this process, and a client that keeps reconnecting to B uses the run's Updates up
 * while a client of A waits for the rest of the run, which comes after a quiet spell longer
 * than a reader's retry budget (30 s).
 */

const UPDATE_LIMIT = 30;
/** The run's own budget, below the server's limit as EventLog's default is below 2,000. */
const READ_BUDGET = 20;
const QUIET_MS = 36_000;

let temporal: Child;
let connection: Connection;
let worker: Worker;
let workerRun: Promise<void>;
const allDeps: ApiDeps[] = [];
const servers: Server[] = [];
const bases: string[] = [];

function step(event: string, delayMs?: number): ScriptStep {
  return { event, data: { message: event, timestamp: 0 }, ...(delayMs ? { delayMs } : {}) };
}

beforeAll(async () => {
  const port = await freePort();
  const cliPath = await findTemporalCli(process.env.TEMPORAL_CLI_PATH, () => undefined);
  temporal = await startDevServer({
    cliPath,
    port,
    namespace: 'default',
    dynamicConfig: { 'history.maxTotalUpdates': UPDATE_LIMIT },
  });
  const env = {
    ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv),
    TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
    TEMPORAL_NAMESPACE: 'default',
    TASK_QUEUE_PREFIX: 'update-limit-test',
  };
  const config = loadConfig(env);
  connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: config.temporal.address }),
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueues.workflows,
    workflowsPath: require.resolve('../support/workflows/scriptedEvents'),
    dataConverter,
  });
  workerRun = worker.run();
  for (const name of ['api-a', 'api-b']) {
    const logger = createLogger('warn', name);
    const deps = createApiDeps(config, client, logger);
    allDeps.push(deps);
    const app = createApp(deps, logger);
    const testRoutes = new Router<ApiState>({ prefix: '/v1' });
    testRoutes.post('/test/stream', async (ctx) => {
      const input = ctx.state.body as unknown as ScriptedEventsInput;
      await deps.streamWorkflow(ctx, input.operation, 'scriptedEvents', { args: [input], timeout: '5m' });
    });
    app.use(testRoutes.routes());
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    servers.push(server);
    bases.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`);
  }
}, 180_000);

afterAll(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    server.close();
  }
  worker?.shutdown();
  await workerRun;
  await Promise.all(allDeps.map((deps) => closeApiDeps(deps)));
  await connection?.close();
  await temporal?.stop();
});

it('streams a run to its end after reconnecting clients used up its Updates', async () => {
  const [baseA, baseB] = bases as [string, string];
  const steps = [step('start'), step('iteration:start', 15_000), step('iteration:end', QUIET_MS), step('complete')];
  const stream = await SseStream.open(`${baseA}/test/stream`, {
    key: apiKey(),
    method: 'POST',
    body: { operation: 'research', steps, readBudget: READ_BUDGET } satisfies ScriptedEventsInput,
  });
  const runId = stream.response.headers.get('x-run-id')!;
  await stream.until((s) => s.events.length >= 1);
  // Each connection to B starts a reader there: its first read answers at once, its second
  // waits until the client goes and the reader lets go.
  for (let i = 0; i < UPDATE_LIMIT; i++) {
    const churn = await SseStream.open(`${baseB}/runs/${runId}/events`, { key: apiKey() });
    await churn.until((s) => s.events.length >= 1);
    churn.abort();
    await churn.finished;
  }
  // The Updates ran out before the quiet spell began, or this test proves nothing.
  expect(stream.events.map((event) => event.event)).toEqual(['start']);
  await stream.finished;
  expect(stream.events.map((event) => event.event)).toEqual(['start', 'iteration:start', 'iteration:end', 'complete']);
}, 120_000);
