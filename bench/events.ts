import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ulid } from 'ulid';
import { createApp } from '../src/api/app';
import { createApiDeps } from '../src/api/deps';
import type { ApiState } from '../src/api/state';
import { loadConfig } from '../src/config';
import { requirePayloadKeys } from '../src/temporal/payloadKeys';
import { runIdOf, workflowIdOf } from '../src/events/streams';
import { createLogger } from '../src/telemetry/logger';
import { serviceDataConverter } from '../src/temporal/payloadCodec';
import { projectRoot, startStack, stopStack, type Stack } from '../test/support/localStack';
import { sseMessages } from '../test/support/sseClient';
import { fmt, percentile } from './common';

/**
 * `npm run bench:events`: the event stream's own latency, with a scripted workflow (the tests'
 * test/support/workflows/scriptedEvents.ts, run by a worker in this process) so nothing but
 * Temporal and the relay is measured:
 * - first byte of a start-and-stream answer (`streamWorkflow`, the path of POST /research and
 *   /automate), and its first event;
 * - relay latency, from the moment the workflow records an event (its `timestamp`, the workflow
 *   task's time, so the task's own work is counted too) until the client has it, on that path
 *   and on GET /v1/runs/{runId}/events served by the stack's API process.
 */

const FIRST_BYTE_RUNS = Number(process.env.BENCH_RUNS ?? 50);
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT ?? 20);
const EVENTS_PER_RUN = 10;
const QUEUE_PREFIX = 'bench-events';

interface Received {
  event: string;
  data: { timestamp?: number };
  at: number;
}

function script(events: number, delayMs: number): unknown[] {
  const steps: unknown[] = [{ event: 'start', data: { message: 'start', timestamp: 0 } }];
  for (let i = 1; i < events; i++) {
    steps.push({
      event: 'iteration:start',
      data: { message: `${i}`, timestamp: 0, iteration: i, maxIterations: events, queries: [] },
      delayMs,
    });
  }
  return steps;
}

/** Reads a whole event stream; `firstByte` is when the answer's headers came, relative to `started`. */
async function readStream(response: Response, started: number): Promise<{ firstByte: number; events: Received[] }> {
  const firstByte = performance.now() - started;
  if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const events: Received[] = [];
  for await (const { event, data, at } of sseMessages(response)) {
    if (event && data) events.push({ event, data: JSON.parse(data) as Received['data'], at });
  }
  return { firstByte, events };
}

function relayLatencies(events: Received[]): number[] {
  return events.filter((event) => event.data.timestamp).map((event) => event.at - event.data.timestamp!);
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))} ms, p95 ${fmt(percentile(sorted, 95))} ms (n=${sorted.length})`;
}

async function main(): Promise<void> {
  const stack: Stack = await startStack(path.resolve(__dirname, '..', '..', 'data', 'bench-logs'), {
    LOG_LEVEL: 'warn',
  });
  const config = loadConfig({ ...stack.env, TASK_QUEUE_PREFIX: QUEUE_PREFIX, LOG_LEVEL: 'warn' });
  const dataConverter = serviceDataConverter(requirePayloadKeys(config.codec));
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const worker = await Worker.create({
    connection: await NativeConnection.connect({ address: config.temporal.address }),
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueues.workflows,
    workflowsPath: path.join(projectRoot(), 'test', 'support', 'workflows', 'scriptedEvents.ts'),
    dataConverter,
  });
  const workerRun = worker.run();
  const logger = createLogger('warn', 'bench-api');
  const deps = createApiDeps(config, client, logger);
  const app = createApp(deps, logger);
  const routes = new Router<ApiState>({ prefix: '/v1' });
  routes.post('/bench/stream', (ctx) =>
    deps.streamWorkflow(ctx, 'research', 'scriptedEvents', { args: [ctx.state.body], timeout: '10m' }),
  );
  app.use(routes.routes());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  const headers = { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' };
  const startAndStream = async (steps: unknown[]) => {
    const started = performance.now();
    const response = await fetch(`${base}/bench/stream`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ operation: 'research', steps }),
    });
    const result = await readStream(response, started);
    return { ...result, firstEvent: result.events[0]!.at - (performance.timeOrigin + started) };
  };

  try {
    for (let i = 0; i < 5; i++) await startAndStream(script(2, 0));
    const firstBytes: number[] = [];
    const firstEvents: number[] = [];
    for (let i = 0; i < FIRST_BYTE_RUNS; i++) {
      const run = await startAndStream(script(1, 0));
      firstBytes.push(run.firstByte);
      firstEvents.push(run.firstEvent);
    }

    const alone = relayLatencies((await startAndStream(script(EVENTS_PER_RUN, 1000))).events.slice(1));
    const streamed = await Promise.all(
      Array.from({ length: CONCURRENT_RUNS }, () => startAndStream(script(EVENTS_PER_RUN, 1000))),
    );
    const postLatencies = streamed.flatMap((run) => relayLatencies(run.events.slice(1)));

    // The same through the stack's API process, on runs started straight in Temporal as the API would.
    const resumed = await Promise.all(
      Array.from({ length: CONCURRENT_RUNS }, async () => {
        const id = ulid();
        await client.workflow.start('scriptedEvents', {
          workflowId: workflowIdOf('test-org', 'research', id),
          taskQueue: config.taskQueues.workflows,
          args: [{ operation: 'research', steps: script(EVENTS_PER_RUN, 1000) }],
          memo: { organization: 'test-org', operation: 'research' },
        });
        const started = performance.now();
        const response = await fetch(`${stack.apiUrl}/runs/${runIdOf('research', id)}/events`, { headers });
        return readStream(response, started);
      }),
    );
    const getLatencies = resumed.flatMap((run) => relayLatencies(run.events.slice(1)));

    console.log(`start-and-stream, ${FIRST_BYTE_RUNS} runs one after another:`);
    console.log(`  first byte (headers)        ${summary(firstBytes)}`);
    console.log(`  first event                 ${summary(firstEvents)}`);
    console.log(`event relay latency, workflow records -> client has it, ${EVENTS_PER_RUN} events a run:`);
    console.log(`  start-and-stream, one run   ${summary(alone)}`);
    console.log(`  and ${CONCURRENT_RUNS} runs at once, their timers firing together:`);
    console.log(`  start-and-stream            ${summary(postLatencies)}`);
    console.log(`  GET /v1/runs/{id}/events    ${summary(getLatencies)}  (the stack's API process)`);
    const sortedBytes = [...firstBytes].sort((a, b) => a - b);
    const relay = [...alone, ...postLatencies, ...getLatencies].sort((a, b) => a - b);
    console.log(`target: first byte < 300 ms -> ${percentile(sortedBytes, 95) < 300 ? 'met (p95)' : 'missed'}`);
    console.log(`target: relay p50 < 100 ms -> ${percentile(relay, 50) < 100 ? 'met' : 'missed'}`);
  } finally {
    server.closeAllConnections();
    server.close();
    worker.shutdown();
    await workerRun;
    await connection.close();
    await stopStack(stack);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
