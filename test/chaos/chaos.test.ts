import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import {
  chaosEnv,
  NPM_START_PROCESSES,
  npmStartKill,
  runFault,
  scriptChaosModel,
  startNpmStartWorld,
  startStandIns,
  CHAOS_ORGANIZATION,
  type ChaosFault,
  type ChaosWorld,
  type NpmStartWorld,
  type StandIns,
} from '../support/chaos';
import { eventually } from '../support/eventually';
import { projectRoot, startStack, type Stack } from '../support/localStack';
import { holdPort } from '../support/npmStart';
import { recordReliability, type ReliabilityRow } from '../support/reliabilityRecord';

/**
 * `npm run test:chaos`: the whole fault matrix of issue #25, on `npm start` and on the cluster
 * topology. Each fault lands while one run of each operation is under way (Extract Markdown,
 * Extract JSON, a Research stream, an Automate stream, an interactive Automate task waiting for
 * its input), and each run is judged as its client saw it (test/support/chaos.ts). Every cell is
 * recorded in data/reliability/chaos.json, whatever its outcome; a test fails when any of its
 * cells is not as required. The short version in `npm test` is test/e2e/chaosShort.test.ts.
 */

const rows: ReliabilityRow[] = [];
let faults = 0;

async function cell(world: ChaosWorld, fault: ChaosFault, requested: Set<string>): Promise<void> {
  const found = await runFault(world, fault, { index: faults++, requested });
  rows.push(...found);
  recordReliability('chaos', found);
  expect(found.filter((row) => !row.ok)).toEqual([]);
}

afterAll(() => {
  const failed = rows.filter((row) => !row.ok);
  console.log(
    `chaos matrix: ${rows.length} cells, ${rows.length - failed.length} as required${failed
      .map((row) => `\n  not ok: ${row.fault} during ${row.target} (${row.figures?.topology}): ${row.outcome}`)
      .join('')}`,
  );
});

describe('npm start', () => {
  let world: NpmStartWorld;

  beforeAll(async () => {
    world = await startNpmStartWorld('chaos');
  }, 150_000);

  afterAll(async () => {
    await world?.close();
  }, 60_000);

  const kill = (processName: string, command: RegExp) => () =>
    npmStartKill(world.stack, 'kill -9', processName, command);

  it.each([
    ['the API', kill('API', NPM_START_PROCESSES.api)],
    ['the workflow and model worker', kill('workflow and model worker', NPM_START_PROCESSES.workflowWorker)],
    ['the fetch and browser worker', kill('fetch and browser worker', NPM_START_PROCESSES.fetchWorker)],
    ['the Temporal dev server', kill('Temporal dev server', NPM_START_PROCESSES.temporal)],
    ['the embedded store', kill('embedded store', NPM_START_PROCESSES.store)],
    [
      'a restart of the API',
      () => npmStartKill(world.stack, 'restart (SIGTERM)', 'API', NPM_START_PROCESSES.api, 'SIGTERM'),
    ],
    [
      'the Temporal dev server stopped for 25 s',
      // The client gives up on a call after about 20 s of retries: 25 s outlasts it.
      () =>
        npmStartKill(
          world.stack,
          'stop for 25 s (SIGTERM)',
          'Temporal dev server',
          NPM_START_PROCESSES.temporal,
          'SIGTERM',
          () => holdPort(world.stack.temporalPort, 25_000),
        ),
    ],
  ])('every operation through %s', async (_name, fault) => cell(world, fault(), world.requested), 300_000);
});

describe('the cluster topology', () => {
  let stack: Stack;
  let standIns: StandIns;
  let world: ChaosWorld;

  beforeAll(async () => {
    standIns = await startStandIns();
    const logDir = path.join(projectRoot(), 'data', 'test-logs', 'chaos-cluster');
    await mkdir(logDir, { recursive: true });
    stack = await startStack(logDir, chaosEnv(standIns.search), 'cluster');
    await scriptChaosModel(stack.modelUrl);
    await eventually(async () => (await fetch(`${new URL(stack.apiUrl).origin}/ready`)).ok, {
      what: 'every worker of the cluster to poll',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    world = {
      topology: 'cluster',
      apiBases: stack.apiUrls,
      temporalAddress: stack.temporalAddress,
      storeUrl: stack.env.DATABASE_URL!,
      modelUrl: stack.modelUrl,
      pages: standIns.pages,
      site: standIns.site,
      organization: CHAOS_ORGANIZATION,
    };
  }, 300_000);

  afterAll(async () => {
    await stack?.close();
    await standIns?.close();
  }, 120_000);

  /** Every process whose service name starts with `prefix` ('worker-fetch-', 'api-1'); over once each is back. */
  const signal =
    (name: string, processName: string, prefix: string, sig: NodeJS.Signals = 'SIGKILL'): (() => ChaosFault) =>
    () => ({
      name,
      process: processName,
      inject: async () => {
        const victims = Object.entries(stack.currentPids()).filter(
          ([service, pid]) => service.startsWith(prefix) && pid,
        );
        if (victims.length === 0) throw new Error(`no process of the cluster is named ${prefix}...`);
        for (const [, pid] of victims) process.kill(pid!, sig);
        await eventually(
          () =>
            victims.every(([service, pid]) => {
              const now = stack.currentPids()[service];
              return now !== undefined && now !== pid;
            }),
          { what: `${processName} to be started again`, timeoutMs: 120_000, intervalMs: 200 },
        );
      },
    });

  it.each([
    ['the API replica the runs started on', signal('kill -9', 'API replica 1', 'api-1')],
    ['both workflow workers', signal('kill -9', 'workflow workers (2)', 'worker-workflow-')],
    ['both fetch workers', signal('kill -9', 'fetch workers (2)', 'worker-fetch-')],
    ['both browser workers', signal('kill -9', 'browser workers (2)', 'worker-browser-')],
    ['both model workers', signal('kill -9', 'model workers (2)', 'worker-model-')],
    ['the Temporal server', signal('kill -9', 'Temporal server', 'temporal')],
    ['PostgreSQL', signal('kill -9', 'PostgreSQL', 'postgres')],
    ['a restart of the API replica', signal('restart (SIGTERM)', 'API replica 1', 'api-1', 'SIGTERM')],
    [
      'a restart of the Temporal server',
      signal('stop and restart (SIGTERM)', 'Temporal server', 'temporal', 'SIGTERM'),
    ],
  ])('every operation through %s', async (_name, fault) => cell(world, fault(), standIns.requested), 400_000);
});
