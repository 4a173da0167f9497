import {
  NPM_START_PROCESSES,
  npmStartKill,
  runFault,
  startNpmStartWorld,
  type ChaosFault,
  type ChaosOperation,
  type NpmStartWorld,
} from '../support/chaos';
import { recordReliability } from '../support/reliabilityRecord';

/**
 * The short, fixed part of the fault matrix (`npm run test:chaos` runs all of it, on both
 * topologies): on `npm start`, the workflow worker killed with SIGKILL while a Research stream
 * and an Extract Markdown request are under way, and the API restarted during a Research stream,
 * whose client resumes with `Last-Event-ID`. Each run completes, its client sees every event of
 * the run's durable log exactly once, and it is charged once. Recorded as suite `chaos-short`.
 *
 * @stack own
 */

let world: NpmStartWorld;

beforeAll(async () => {
  world = await startNpmStartWorld('chaos-short');
}, 120_000);

afterAll(async () => {
  await world?.close();
}, 60_000);

async function cell(fault: (world: NpmStartWorld) => ChaosFault, index: number, operations: ChaosOperation[]) {
  const rows = await runFault(world, fault(world), { index, operations, requested: world.requested });
  recordReliability('chaos-short', rows);
  expect(rows.filter((row) => !row.ok)).toEqual([]);
  expect(rows.map((row) => row.target)).toEqual(expect.arrayContaining(operations));
}

it('completes Research and Extract Markdown, each event once and each run charged once, through a killed workflow worker', async () => {
  await cell(
    ({ stack }) => npmStartKill(stack, 'kill -9', 'workflow and model worker', NPM_START_PROCESSES.workflowWorker),
    0,
    ['Research stream', 'Extract Markdown'],
  );
}, 150_000);

it('resumes a Research stream with Last-Event-ID through a restart of the API, each event once', async () => {
  await cell(({ stack }) => npmStartKill(stack, 'restart (SIGTERM)', 'API', NPM_START_PROCESSES.api, 'SIGTERM'), 1, [
    'Research stream',
  ]);
}, 150_000);
