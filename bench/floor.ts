import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { startDevServer } from '../src/stack/devServer';
import { freePort } from '../src/stack/ports';
import { findTemporalCli } from '../src/stack/temporalCli';
import { fmt, percentile } from './common';
import { FLOOR_ACTIVITY_QUEUE, type FloorActivities } from './floorWorkflow';
import { procStat } from './procStat';

/**
 * `npm run bench:floor`: what Temporal itself costs a request shaped like Extract Markdown's, with
 * nothing of the service in it: a workflow that runs one activity on another task queue and
 * returns its result, on the dev server the stack starts (same settings, in memory), with the
 * SDK's workers and client in this one process, no payload codec, no API, no page. Prints p50 at
 * concurrency 1, throughput at 16, and the CPU per run of the server and of this process: the
 * floor under bench:markdown's figures, beside issue #27's targets for them.
 */

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 800);
const WARM_UP = 50;
const WORKFLOW_QUEUE = 'floor-workflows';
/** Issue #27's targets for Extract Markdown `min`: what Temporal and the API may add at 1, and req/s at 16. */
const ADDED_P50_TARGET_MS = 15;
const C16_TARGET = 50;

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') });
  const port = await freePort();
  const server = await startDevServer({
    cliPath: await findTemporalCli(process.env.TEMPORAL_CLI_PATH, (line) => console.log(line)),
    port,
    namespace: 'default',
  });
  const workerConnection = await NativeConnection.connect({ address: `127.0.0.1:${port}` });
  const connection = await Connection.connect({ address: `127.0.0.1:${port}` });
  const workers = [
    await Worker.create({
      connection: workerConnection,
      taskQueue: WORKFLOW_QUEUE,
      workflowsPath: require.resolve('./floorWorkflow'),
      maxConcurrentWorkflowTaskExecutions: 8,
    }),
    await Worker.create({
      connection: workerConnection,
      taskQueue: FLOOR_ACTIVITY_QUEUE,
      activities: { nothing: async () => 'done' } satisfies FloorActivities,
    }),
  ];
  const running = Promise.all(workers.map((worker) => worker.run()));
  try {
    const client = new Client({ connection });
    let next = 0;
    const run = async (): Promise<number> => {
      const started = performance.now();
      await client.workflow.execute('floorRun', { taskQueue: WORKFLOW_QUEUE, workflowId: `floor-${next++}` });
      return performance.now() - started;
    };
    for (let i = 0; i < WARM_UP; i++) await run();
    const sequential: number[] = [];
    for (let i = 0; i < SEQUENTIAL; i++) sequential.push(await run());
    sequential.sort((a, b) => a - b);
    const serverBefore = procStat(server.process.pid!)!.cpuMs;
    const ownBefore = procStat(process.pid)!.cpuMs;
    const startedAt = performance.now();
    let left = PARALLEL;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (left-- > 0) await run();
      }),
    );
    const seconds = (performance.now() - startedAt) / 1000;
    const serverMs = (procStat(server.process.pid!)!.cpuMs - serverBefore) / PARALLEL;
    const ownMs = (procStat(process.pid)!.cpuMs - ownBefore) / PARALLEL;
    const p50 = percentile(sequential, 50);
    console.log(`a workflow with one empty activity, nothing of the service (dev server in memory):`);
    console.log(`concurrency 1: p50 ${fmt(p50)} ms  p95 ${fmt(percentile(sequential, 95))} ms  (n=${SEQUENTIAL})`);
    console.log(`concurrency 16: ${fmt(PARALLEL / seconds)} req/s  (n=${PARALLEL})`);
    console.log(`CPU ms per run at 16: Temporal ${fmt(serverMs)}, SDK workers and client ${fmt(ownMs)}`);
    console.log(
      `against issue #27's targets for Extract Markdown min: Temporal + API <= ${ADDED_P50_TARGET_MS} ms p50 ` +
        `(this floor alone: ${fmt(p50)} ms, ${p50 <= ADDED_P50_TARGET_MS ? 'under' : 'over'}); ` +
        `>= ${C16_TARGET} req/s at 16 with a page read in each (this floor, with none: ${fmt(PARALLEL / seconds)} req/s)`,
    );
  } finally {
    for (const worker of workers) worker.shutdown();
    await running;
    await workerConnection.close();
    await connection.close();
    await server.stop();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
