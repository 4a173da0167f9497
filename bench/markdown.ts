import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { stopStack, type Stack } from '../test/support/localStack';
import { articlePage, callApi, fmt, load, percentile, servePage, startBenchStack } from './common';
import { breakdown, type TimedCall } from './requestTrace';
import { cpuDuring, type CpuSplit } from './stackCost';

/**
 * `npm run bench:markdown`: Extract Markdown end to end on the stack of BENCH_TOPOLOGY (the
 * embedded one by default: Temporal dev server, worker and API processes) against a ~100 KB
 * article served on loopback. Prints latency percentiles at concurrency 1 and 16, throughput,
 * where a request's time goes (from the runs' histories), the CPU each kind of process spends
 * per request at 16, and the targets.
 *
 * `--against DIR` starts a second stack from DIR's build (a checkout of an older commit, built
 * with `npm run build:tools`) beside this one and alternates the rounds of `min` between them,
 * so both builds see the same machine load; `--rounds N` sets the rounds (each
 * BENCH_SEQUENTIAL requests at 1, BENCH_PARALLEL at 16); `--min-only` skips the other efforts.
 */

const args = process.argv.slice(2);
const option = (name: string): string | undefined => {
  const at = args.indexOf(name);
  return at >= 0 ? args[at + 1] : undefined;
};
const AGAINST = option('--against');
const ROUNDS = Number(option('--rounds') ?? 1);
const MIN_ONLY = args.includes('--min-only') || AGAINST !== undefined;
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 800);
const CONCURRENCY = 16;
const MAX_RUNS = Number(process.env.BENCH_MAX_RUNS ?? 20);
/** Runs at 16 whose histories are read for the breakdown there. */
const TRACED_AT_16 = 100;

/** Issue #27: what Temporal and the API add at concurrency 1, and throughput at 16 on 2 cores. */
const TARGET_OVERHEAD_MS = 15;
const TARGET_RATIO = 1.6;
const TARGET_RPS = 50;

interface Options {
  effort: 'min' | 'standard' | 'max';
  nocache: boolean;
}

const UNCACHED_MIN: Options = { effort: 'min', nocache: true };

const extract = (stack: Stack, url: string, options: Options) =>
  callApi(stack, '/extract/markdown', { url, ...options });

const runAt = (stack: Stack, url: string, total: number, concurrency: number, options = UNCACHED_MIN) =>
  load(total, concurrency, () => extract(stack, url, options));

/** One build's stack and what its rounds of `min` measured. */
interface Side {
  name: string;
  stack: Stack;
  one: TimedCall[];
  oneSeconds: number;
  many: TimedCall[];
  manySeconds: number;
  cpu: CpuSplit[];
}

/** `total` uncached `min` requests at `concurrency`, each timed on this process's clock. */
async function timedRun(stack: Stack, url: string, total: number, concurrency: number) {
  const calls: TimedCall[] = [];
  const started = performance.now();
  await load(total, concurrency, async () => {
    const sentAt = performance.timeOrigin + performance.now();
    const answer = await extract(stack, url, UNCACHED_MIN);
    calls.push({ workflowId: answer.workflowId, sentAt, answeredAt: performance.timeOrigin + performance.now() });
    return answer;
  });
  return { calls, seconds: (performance.now() - started) / 1000 };
}

async function round(side: Side, url: string): Promise<void> {
  const one = await timedRun(side.stack, url, SEQUENTIAL, 1);
  side.one.push(...one.calls);
  side.oneSeconds += one.seconds;
  const { result: many, cpu } = await cpuDuring(
    side.stack,
    (run) => run.calls.length,
    () => timedRun(side.stack, url, PARALLEL, CONCURRENCY),
  );
  side.many.push(...many.calls);
  side.manySeconds += many.seconds;
  side.cpu.push(cpu);
}

const latencies = (calls: TimedCall[]) => calls.map((call) => call.answeredAt - call.sentAt).sort((a, b) => a - b);

/** Sums each process's figure over the rounds, then divides by the rounds. */
function meanSplit(splits: CpuSplit[], key: keyof CpuSplit): [string, number][] {
  const sums = new Map<string, number>();
  for (const split of splits)
    for (const [name, value] of Object.entries(split[key])) sums.set(name, (sums.get(name) ?? 0) + value);
  return [...sums].map(([name, sum]): [string, number] => [name, sum / splits.length]).sort((a, b) => b[1] - a[1]);
}

async function report(side: Side): Promise<void> {
  const one = latencies(side.one);
  const many = latencies(side.many);
  const p50 = percentile(one, 50);
  const rps = side.many.length / side.manySeconds;
  const split = await breakdown(side.stack, side.one);
  const overhead = p50 - split.workMs;
  const label = `[${side.name}]`;
  console.log(
    `${label} min, concurrency 1:  p50 ${fmt(p50)} ms  p95 ${fmt(percentile(one, 95))} ms  ` +
      `${fmt(side.one.length / side.oneSeconds)} req/s`,
  );
  console.log(
    `${label} min, concurrency ${CONCURRENCY}: p50 ${fmt(percentile(many, 50))} ms  p95 ${fmt(percentile(many, 95))} ms  ` +
      `${fmt(rps)} req/s`,
  );
  console.log(`${label} where a request's time goes at concurrency 1 (medians over ${side.one.length} runs):`);
  for (const segment of split.segments) console.log(`${label}   ${segment.name}: ${fmt(segment.ms)} ms`);
  // At 16 the steps that wait for a free poller or worker slot grow: that is where the queueing is.
  const loaded = await breakdown(side.stack, side.many.slice(-TRACED_AT_16));
  console.log(`${label} the same at concurrency ${CONCURRENCY} (medians over the last ${TRACED_AT_16} runs):`);
  for (const segment of loaded.segments) console.log(`${label}   ${segment.name}: ${fmt(segment.ms)} ms`);
  console.log(
    `${label} bare work: fetch ${fmt(split.workMs)} ms (download ${fmt(split.downloadMs)} ms, ` +
      `read ${fmt(split.workMs - split.downloadMs)} ms); Temporal + API ${fmt(overhead)} ms; ` +
      `service ${fmt(p50 / split.workMs)}x the bare work`,
  );
  const perRequest = meanSplit(side.cpu, 'perRequest');
  console.log(
    `${label} CPU ms per request at ${CONCURRENCY}: ${perRequest.map(([name, ms]) => `${name} ${fmt(ms)}`).join(', ')}; ` +
      `total ${fmt(perRequest.reduce((sum, [, ms]) => sum + ms, 0))}`,
  );
  console.log(
    `${label} cores busy at ${CONCURRENCY}: ` +
      meanSplit(side.cpu, 'cores')
        .map(([name, cores]) => `${name} ${cores.toFixed(2)}`)
        .join(', '),
  );
  console.log(
    `${label} targets: Temporal + API <= ${TARGET_OVERHEAD_MS} ms p50 -> ${verdict(overhead <= TARGET_OVERHEAD_MS)}; ` +
      `<= ${TARGET_RATIO}x the bare work -> ${verdict(p50 / split.workMs <= TARGET_RATIO)}; ` +
      `>= ${TARGET_RPS} req/s at ${CONCURRENCY} -> ${verdict(rps >= TARGET_RPS)}`,
  );
}

const verdict = (ok: boolean) => (ok ? 'met' : 'missed');

function commitOf(dir: string): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
  } catch {
    return dir;
  }
}

const loadAverage = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(' ');

/** The other efforts and the cache hit, on this build's stack only. */
async function otherEfforts(stack: Stack, url: string): Promise<void> {
  const standard = await runAt(stack, url, Math.ceil(SEQUENTIAL / 2), 1, { effort: 'standard', nocache: true });
  await runAt(stack, url, 3, 1, { effort: 'max', nocache: true });
  const max = await runAt(stack, url, MAX_RUNS, 1, { effort: 'max', nocache: true });
  await extract(stack, url, { effort: 'min', nocache: false });
  const hit = await runAt(stack, url, SEQUENTIAL, 1, { effort: 'min', nocache: false });
  console.log(`standard:            p50 ${fmt(standard.p50)} ms  p95 ${fmt(standard.p95)} ms`);
  console.log(`max (Chromium):      p50 ${fmt(max.p50)} ms  p95 ${fmt(max.p95)} ms`);
  console.log(`cache hit:           p50 ${fmt(hit.p50)} ms  p95 ${fmt(hit.p95)} ms`);
  console.log(
    `targets: cache hit p50 < 10 ms (issue #27) -> ${verdict(hit.p50 < 10)}; max p50 < 1500 ms -> ${verdict(max.p50 < 1500)}`,
  );
}

async function main(): Promise<void> {
  const page = articlePage();
  const { url, close } = await servePage(page);
  const logs = path.resolve(__dirname, '..', '..', 'data');
  const root = path.resolve(__dirname, '..', '..');
  const sides: Side[] = [];
  const side = (name: string, stack: Stack): Side => ({
    name,
    stack,
    one: [],
    oneSeconds: 0,
    many: [],
    manySeconds: 0,
    cpu: [],
  });
  try {
    sides.push(
      side(`this build ${commitOf(root)}`, await startBenchStack(path.join(logs, 'bench-logs'), { LOG_LEVEL: 'warn' })),
    );
    if (AGAINST) {
      const other = (await import(
        path.resolve(AGAINST, 'dist', 'test', 'support', 'localStack.js')
      )) as typeof import('../test/support/localStack');
      sides.push(
        side(
          `against ${commitOf(AGAINST)}`,
          await other.startStack(path.join(logs, 'bench-logs-against'), { LOG_LEVEL: 'warn' }),
        ),
      );
    }
    console.log(
      `page: ${(Buffer.byteLength(page) / 1024).toFixed(0)} KB; ${ROUNDS} round(s) of ${SEQUENTIAL} requests at ` +
        `concurrency 1 and ${PARALLEL} at ${CONCURRENCY}${sides.length > 1 ? ', alternating builds' : ''}; ` +
        `load average ${loadAverage()}`,
    );
    for (const { stack } of sides) await runAt(stack, url, 30, 4);
    for (let r = 0; r < ROUNDS; r++) {
      // Each build goes first in every other round, so neither always meets the machine's drift first.
      for (const each of r % 2 === 0 ? sides : [...sides].reverse()) await round(each, url);
    }
    console.log(`load average after the rounds: ${loadAverage()}`);
    for (const each of sides) await report(each);
    if (!MIN_ONLY) await otherEfforts(sides[0]!.stack, url);
  } finally {
    for (const each of sides) await stopStack(each.stack);
    close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
