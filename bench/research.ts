import { loadavg } from 'node:os';
import path from 'node:path';
import { projectRoot, stopStack, type Stack } from '../test/support/localStack';
import { CORPUS, startResearchCorpus } from '../test/support/researchCorpus';
import { startSearchStandIn } from '../test/support/searchStandIn';
import { sseMessages } from '../test/support/sseClient';
import { fmt, percentile, startBenchStack } from './common';
import { scriptInstantModel as script } from './instantResearch';
import { memoryLines, watchMemory, type KindPeak } from './memory';
import {
  mergeTraces,
  relayHistogram,
  relayTraceLines,
  traceRelay,
  type ClientEvent,
  type RelayTrace,
} from './relayTrace';
import { costMeter, perRequest, type StackCost } from './stackCost';

/**
 * `npm run bench:research`: Research over the 33-page test corpus with instant stand-ins (the
 * model stand-in and the SearXNG stand-in answer at once), so what is measured is the service:
 * Temporal, the workers' fetching and reading, the relay. It prints the time to the first event,
 * the relay latency (the workflow recording an event -> the client having it), the wall time of
 * a `fast` and a `balanced` run, and 50 `fast` runs at once: their wall time and the peak memory
 * of each process of the stack. Every request has `nocache`, so every page is fetched; the
 * queries keep clear of the corpus's slow and failing pages.
 *
 * Then, with a model that takes MODEL_LATENCY_MS (5 s) an answer, as a real one does, each mode
 * again: its sequential model calls (the longest chain of calls each asked after the one before
 * it was answered), the time to the first event, the longest gap between events and the total
 * time, p50 over the runs, against `fast`'s targets. `-- --latency` runs only that part.
 *
 * For the runs at once it also prints where the relay's time goes (see relayTrace.ts) and the
 * CPU each process of the stack used meanwhile; `-- --concurrent` runs only the runs at once
 * (after BENCH_RUNS sequential ones, for the relay of one run alone), and BENCH_VARIANT compares
 * settings of the stack's processes on that part (see compareVariant).
 */

const SEQUENTIAL_RUNS = Number(process.env.BENCH_RUNS ?? 10);
const BALANCED_RUNS = Number(process.env.BENCH_BALANCED_RUNS ?? 3);
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT ?? 50);
const MODEL_LATENCY_MS = Number(process.env.BENCH_MODEL_LATENCY_MS ?? 5_000);
const LATENCY_RUNS = Number(process.env.BENCH_LATENCY_RUNS ?? 10);
const LATENCY_BALANCED_RUNS = Number(process.env.BENCH_LATENCY_BALANCED_RUNS ?? LATENCY_RUNS);
const ONLY_LATENCY = process.argv.includes('--latency');
const ONLY_CONCURRENT = process.argv.includes('--concurrent');
/** Settings to compare with the stack as it is, on the runs at once only (see compareVariant). */
const VARIANT = process.env.BENCH_VARIANT;
const VARIANT_ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
/** Relay latency targets with CONCURRENT_RUNS at once (issue #27), in ms. */
const RELAY_P50_TARGET_MS = 100;
const RELAY_P95_TARGET_MS = 250;
/** `fast`'s budget for searching and reading, on top of its two model calls. */
const FAST_READING_MS = 5_000;
/** `fast`'s longest silence may exceed one model call by this much. */
const FAST_GAP_SLACK_MS = 2_000;

interface RunTiming {
  firstByte: number;
  firstEvent: number;
  wall: number;
  /** Per event: client receipt minus the workflow's record time, in ms. */
  relay: number[];
  /** The longest time between two events, in ms. */
  longestGap: number;
  last: string;
  /** Every event with a timestamp, for tracing the relay. */
  events: ClientEvent[];
}

/**
 * The model calls of the run just made that had to wait for one another: the longest chain of
 * calls each asked once the one before was answered (every answer takes `latencyMs`).
 */
async function sequentialModelCalls(stack: Stack, latencyMs: number): Promise<number> {
  const received = (await (await fetch(`${stack.modelUrl}/__control/requests`)).json()) as { receivedAt: number }[];
  const starts = received.map((request) => request.receivedAt).sort((a, b) => a - b);
  let chain = 0;
  let free = -Infinity;
  // A call asked within this of the previous answer still waited for it.
  const slack = latencyMs / 10;
  for (const start of starts) {
    if (start < free - slack) continue;
    chain++;
    free = start + latencyMs;
  }
  return chain;
}

async function research(stack: Stack, body: Record<string, unknown>): Promise<RunTiming> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}/research`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, nocache: true }),
  });
  const firstByte = performance.now() - started;
  if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const workflowId = response.headers.get('x-workflow-id') ?? '';
  const events: ClientEvent[] = [];
  const relay: number[] = [];
  let firstEvent = NaN;
  let last = '';
  let longestGap = 0;
  let previous = NaN;
  for await (const { id, event, data, at } of sseMessages(response)) {
    if (!event || !data) continue;
    if (Number.isNaN(firstEvent)) firstEvent = performance.now() - started;
    if (!Number.isNaN(previous)) longestGap = Math.max(longestGap, at - previous);
    previous = at;
    last = event;
    const { timestamp } = JSON.parse(data) as { timestamp?: number };
    if (timestamp) {
      relay.push(at - timestamp);
      events.push({ workflowId, id: Number(id), recordedAt: timestamp, at });
    }
  }
  if (last !== 'complete') throw new Error(`the run ended with ${last}, not complete`);
  return { firstByte, firstEvent, wall: performance.now() - started, relay, longestGap, last, events };
}

interface LatencyFigures {
  calls: number;
  firstEvent: number;
  longestGap: number;
  total: number;
}

/** `runs` runs of `mode` with every model answer taking MODEL_LATENCY_MS: the p50 of each figure. */
async function withSlowModel(stack: Stack, mode: 'fast' | 'balanced', runs: number): Promise<LatencyFigures> {
  const calls: number[] = [];
  const timings: RunTiming[] = [];
  for (let i = 0; i < runs; i++) {
    await script(stack, MODEL_LATENCY_MS);
    timings.push(
      await research(stack, { query: `Volcanoes, bees and aqueducts, ${mode} at a model's pace ${i}`, mode }),
    );
    calls.push(await sequentialModelCalls(stack, MODEL_LATENCY_MS));
  }
  const p50 = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  return {
    calls: p50(calls),
    firstEvent: p50(timings.map((run) => run.firstEvent)),
    longestGap: p50(timings.map((run) => run.longestGap)),
    total: p50(timings.map((run) => run.wall)),
  };
}

async function latencyReport(stack: Stack): Promise<void> {
  const fast = await withSlowModel(stack, 'fast', LATENCY_RUNS);
  const balanced = await withSlowModel(stack, 'balanced', LATENCY_BALANCED_RUNS);
  const targets = {
    calls: 2,
    total: 2 * MODEL_LATENCY_MS + FAST_READING_MS,
    longestGap: MODEL_LATENCY_MS + FAST_GAP_SLACK_MS,
  };
  const met = (ok: boolean) => (ok ? 'met' : 'NOT MET');
  const row = (label: string, f: number, b: number, unit: string, target: string) =>
    console.log(
      `${label.padEnd(26)} ${`${fmt(f)}${unit}`.padStart(10)} ${`${fmt(b)}${unit}`.padStart(12)} ${`${fmt(b / f)}x`.padStart(8)}   ${target}`,
    );
  console.log(
    `\nModel stand-in answering after ${fmt(MODEL_LATENCY_MS)} ms; p50 over ${LATENCY_RUNS} fast and ${LATENCY_BALANCED_RUNS} balanced runs:`,
  );
  console.log(
    `${''.padEnd(26)} ${'fast'.padStart(10)} ${'balanced'.padStart(12)} ${'ratio'.padStart(8)}   fast target`,
  );
  row(
    'sequential model calls',
    fast.calls,
    balanced.calls,
    '',
    `${targets.calls}: ${met(fast.calls <= targets.calls)}`,
  );
  row('time to first event', fast.firstEvent, balanced.firstEvent, ' ms', '');
  row(
    'longest gap between events',
    fast.longestGap,
    balanced.longestGap,
    ' ms',
    `<= ${fmt(targets.longestGap)} ms: ${met(fast.longestGap <= targets.longestGap)}`,
  );
  row(
    'total time',
    fast.total,
    balanced.total,
    ' ms',
    `<= ${fmt(targets.total)} ms: ${met(fast.total <= targets.total)}`,
  );
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))} ms  p95 ${fmt(percentile(sorted, 95))} ms  (n=${values.length})`;
}

interface AtOnce {
  wall: number;
  runs: RunTiming[];
  /** What the stack's processes used meanwhile. */
  cost: StackCost;
  trace: RelayTrace;
  peaks: Record<string, KindPeak>;
}

/** CONCURRENT_RUNS `fast` runs at once, traced. */
async function atOnce(stack: Stack): Promise<AtOnce> {
  await script(stack);
  const stopWatching = watchMemory(stack.pids);
  const histogramBefore = await relayHistogram(stack);
  const meter = await costMeter(stack);
  const started = performance.now();
  const runs = await Promise.all(
    Array.from({ length: CONCURRENT_RUNS }, (_, i) => research(stack, { query: `Concurrent research ${i}` })),
  );
  const wall = performance.now() - started;
  const cost = await meter();
  const peaks = stopWatching();
  const trace = await traceRelay(
    stack,
    runs.flatMap((run) => run.events),
    histogramBefore,
    await relayHistogram(stack),
  );
  return { wall, runs, cost, trace, peaks };
}

/** The relay under load of one or more rounds of `atOnce`, against the targets, and where its time went. */
function atOnceLines(rounds: AtOnce[]): string[] {
  const underLoad = rounds.flatMap((round) => round.runs.flatMap((run) => run.relay)).sort((a, b) => a - b);
  const [p50, p95] = [percentile(underLoad, 50), percentile(underLoad, 95)];
  const runs = rounds.length * CONCURRENT_RUNS;
  const cpu = new Map<string, number>();
  let walBytes: number | undefined;
  for (const { cost } of rounds) {
    for (const [kind, ms] of cost.cpu) cpu.set(kind, (cpu.get(kind) ?? 0) + ms);
    if (cost.walBytes !== undefined) walBytes = (walBytes ?? 0) + cost.walBytes;
  }
  return [
    `wall time of each run            ${summary(rounds.flatMap((round) => round.runs.map((run) => run.wall)))}`,
    `relay latency under that load   ${summary(underLoad)}  target p50 < ${RELAY_P50_TARGET_MS} ms: ` +
      `${p50 < RELAY_P50_TARGET_MS ? 'met' : 'MISSED'}, p95 < ${RELAY_P95_TARGET_MS} ms: ` +
      `${p95 < RELAY_P95_TARGET_MS ? 'met' : 'MISSED'}`,
    ...relayTraceLines(mergeTraces(rounds.map((round) => round.trace))),
    `per run: ${perRequest({ cpu, walBytes }, runs)}`,
  ];
}

const loadAverage = (): string =>
  loadavg()
    .map((load) => load.toFixed(1))
    .join(' ');

/** A stack with the benchmark's stand-ins and `env`, warmed up. */
async function benchStack(searchUrl: string, env: NodeJS.ProcessEnv = {}): Promise<Stack> {
  const stack = await startBenchStack(path.join(projectRoot(), 'data', 'bench-logs'), {
    SEARXNG_URL: searchUrl,
    LOG_LEVEL: 'warn',
    ...env,
  });
  try {
    await script(stack);
    // Warm-up: worker sandboxes, connections, the conversion threads.
    await research(stack, { query: 'warm up' });
    return stack;
  } catch (err) {
    await stopStack(stack);
    throw err;
  }
}

/**
 * BENCH_VARIANT (`NAME=value ...`, settings for the stack's processes) against the stack as it
 * is: the runs at once on a fresh stack of each, in BENCH_ROUNDS rounds whose order alternates,
 * so the machine's changing load falls on both alike.
 */
async function compareVariant(searchUrl: string, variant: string): Promise<void> {
  const env = Object.fromEntries(
    variant
      .split(/\s+/)
      .filter(Boolean)
      .map((setting) => [setting.slice(0, setting.indexOf('=')), setting.slice(setting.indexOf('=') + 1)]),
  );
  const sides = [
    { name: 'as is', env: {}, rounds: [] as AtOnce[] },
    { name: variant, env, rounds: [] as AtOnce[] },
  ];
  for (let round = 0; round < VARIANT_ROUNDS; round++) {
    for (const side of round % 2 === 0 ? sides : [...sides].reverse()) {
      const stack = await benchStack(searchUrl, side.env);
      try {
        side.rounds.push(await atOnce(stack));
      } finally {
        await stopStack(stack);
      }
      console.log(`round ${round + 1}, ${side.name}: done (load average ${loadAverage()})`);
    }
  }
  for (const side of sides) {
    console.log(`\n${CONCURRENT_RUNS} fast runs at once, ${VARIANT_ROUNDS} rounds, ${side.name}:`);
    for (const line of atOnceLines(side.rounds)) console.log(`  ${line}`);
  }
}

async function main(): Promise<void> {
  const corpus = await startResearchCorpus();
  const search = await startSearchStandIn(corpus);
  try {
    if (VARIANT) return await compareVariant(search.baseUrl, VARIANT);
    const stack = await benchStack(search.baseUrl);
    try {
      if (ONLY_LATENCY) return await latencyReport(stack);
      await report(stack);
    } finally {
      await stopStack(stack);
    }
  } finally {
    await search.close();
    await corpus.close();
  }
}

async function report(stack: Stack): Promise<void> {
  const fast: RunTiming[] = [];
  const aloneBefore = await relayHistogram(stack);
  for (let i = 0; i < SEQUENTIAL_RUNS; i++)
    fast.push(await research(stack, { query: `Volcanoes, bees and aqueducts ${i}` }));
  const alone = await traceRelay(
    stack,
    fast.flatMap((run) => run.events),
    aloneBefore,
    await relayHistogram(stack),
  );
  const balanced: RunTiming[] = [];
  for (let i = 0; i < (ONLY_CONCURRENT ? 0 : BALANCED_RUNS); i++) {
    await script(stack);
    balanced.push(await research(stack, { query: `Volcanoes, bees and aqueducts in depth ${i}`, mode: 'balanced' }));
  }
  const concurrent = await atOnce(stack);

  console.log(`Research over the ${CORPUS.length}-page corpus, instant model and search stand-ins, nocache:`);
  console.log(`time to first byte (headers)      ${summary(fast.map((run) => run.firstByte))}`);
  console.log(`time to first event (start)       ${summary(fast.map((run) => run.firstEvent))}`);
  console.log(
    `event relay latency               ${summary(fast.flatMap((run) => run.relay))}  (workflow records -> client has it)`,
  );
  for (const line of relayTraceLines(alone)) console.log(`  ${line}`);
  console.log(`wall time, fast run               ${summary(fast.map((run) => run.wall))}`);
  console.log(`wall time, balanced run           ${summary(balanced.map((run) => run.wall))}`);
  console.log(
    `${CONCURRENT_RUNS} fast runs at once: wall ${fmt(concurrent.wall)} ms; each run ` +
      `${summary(concurrent.runs.map((run) => run.wall))} (load average ${loadAverage()})`,
  );
  for (const line of atOnceLines([concurrent])) console.log(`  ${line}`);
  console.log('  peak resident memory by process:');
  for (const line of memoryLines(concurrent.peaks)) console.log(`    ${line}`);
  if (!ONLY_CONCURRENT) await latencyReport(stack);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
