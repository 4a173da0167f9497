import path from 'node:path';
import { projectRoot, startStack, stopStack, type Stack } from '../test/support/localStack';
import { recordReliability } from '../test/support/reliabilityRecord';
import { startResearchCorpus } from '../test/support/researchCorpus';
import { startSearchStandIn } from '../test/support/searchStandIn';
import { sseMessages } from '../test/support/sseClient';
import { activityMs, articlePage, callApi, fmt, percentile, servePage } from './common';
import { scriptInstantModel } from './instantResearch';
import { memoryLines, watchMemory, type KindPeak } from './memory';

/**
 * `npm run bench:load`: the embedded stack under sustained load, as bench/markdown.ts starts it.
 * 1. Extract Markdown (effort min, nocache, the ~100 KB article of bench/markdown.ts) at
 *    concurrency 1, 2, 4, 8... each level held for LEVEL_SECONDS, until the knee (kneeOf below).
 *    Per level: req/s, p50, p95, errors; and at concurrency 1 and at the knee, the service's p50
 *    over the bare read's (the fetch activity: download plus conversion, from the runs' histories).
 * 2. STREAMS Research event streams kept open for HOLD_SECONDS with instant model and search
 *    stand-ins: a stream that ends is replaced at once. Every stream is read to its end and its
 *    event ids checked: each event exactly once, in order, up to a final `complete` or `error`;
 *    then each run's log is read again from its start and compared with what the stream carried.
 * During each part, the peak resident memory of every process of the stack, by kind.
 * `-- --short` (or BENCH_SHORT=1) is the smoke run: short levels up to 8, 20 streams for 15 s.
 * The figures go to data/reliability/load.json too, for docs/reliability.md.
 */

const SHORT = process.argv.includes('--short') || process.env.BENCH_SHORT === '1';
const LEVEL_SECONDS = Number(process.env.BENCH_LEVEL_SECONDS ?? (SHORT ? 6 : 30));
const MAX_CONCURRENCY = Number(process.env.BENCH_MAX_CONCURRENCY ?? (SHORT ? 8 : 512));
const STREAMS = Number(process.env.BENCH_STREAMS ?? (SHORT ? 20 : 200));
const HOLD_SECONDS = Number(process.env.BENCH_HOLD_SECONDS ?? (SHORT ? 15 : 60));
/** A stream silent past this is counted as hung and dropped by the client. */
const STREAM_TIMEOUT_MS = 10 * 60_000;
/** How many runs' logs are read again at once after the hold. */
const REREAD_CONCURRENCY = 16;
/** The runs per level whose histories give the bare read. */
const HISTORY_SAMPLE = 30;

/**
 * The knee: doubling the concurrency past it no longer pays. A doubling breaks down when
 * throughput rises by less than THROUGHPUT_GAIN, or p95 grows more than P95_OVER_THROUGHPUT
 * times as much as throughput does (ideal scaling doubles throughput at the same p95; a
 * saturated service keeps its throughput and doubles p95, as queueing says), or more than
 * ERROR_SHARE of its requests fail. The knee is the level before the first breakdown.
 */
const THROUGHPUT_GAIN = 1.1;
const P95_OVER_THROUGHPUT = 1.5;
const ERROR_SHARE = 0.01;

interface Level {
  concurrency: number;
  ok: number;
  errors: number;
  firstError?: string;
  rps: number;
  p50: number;
  p95: number;
  ids: string[];
}

/** Why going from `from` to `to` broke down, or undefined if it did not. */
function breakdown(from: Level, to: Level): string | undefined {
  const gain = to.rps / from.rps;
  const growth = to.p95 / from.p95;
  if (to.errors > ERROR_SHARE * (to.ok + to.errors)) return `${to.errors} errors`;
  if (gain < THROUGHPUT_GAIN) return `throughput x${gain.toFixed(2)}`;
  if (growth > P95_OVER_THROUGHPUT * gain) return `p95 x${growth.toFixed(2)} against throughput x${gain.toFixed(2)}`;
  return undefined;
}

/** `concurrency` callers, each calling again as soon as its call ends, for `seconds`. */
async function sustain(
  concurrency: number,
  seconds: number,
  call: () => Promise<{ ms: number; workflowId: string }>,
): Promise<Level> {
  const latencies: number[] = [];
  const ids: string[] = [];
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        try {
          const { ms, workflowId } = await call();
          latencies.push(ms);
          ids.push(workflowId);
        } catch (err) {
          errors++;
          firstError ??= String(err);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    concurrency,
    ok: latencies.length,
    errors,
    firstError,
    rps: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    ids,
  };
}

async function markdownRamp(stack: Stack): Promise<void> {
  const { url, close } = await servePage(articlePage());
  const extract = () => callApi(stack, '/extract/markdown', { url, effort: 'min', nocache: true });
  try {
    await sustain(4, 3, extract);
    console.log(`Extract Markdown (effort min, nocache), each level held ${LEVEL_SECONDS} s:`);
    console.log(
      `${'concurrency'.padStart(11)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(9)} ${'p95 ms'.padStart(9)}  errors`,
    );
    const levels: Level[] = [];
    let knee: Level | undefined;
    const stopWatching = watchMemory(stack.pids);
    for (let concurrency = 1; concurrency <= MAX_CONCURRENCY && !knee; concurrency *= 2) {
      const level = await sustain(concurrency, LEVEL_SECONDS, extract);
      const previous = levels.at(-1);
      const why = previous && breakdown(previous, level);
      if (why) knee = previous;
      levels.push(level);
      recordReliability('load', [
        {
          fault: `concurrency ${concurrency}, held ${LEVEL_SECONDS} s`,
          target: 'Extract Markdown',
          outcome: `${level.ok} answered, ${level.errors} failed${why ? `; breaks down: ${why}` : ''}`,
          ok: level.errors === 0,
          figures: { concurrency, 'req/s': round(level.rps), 'p50 ms': round(level.p50), 'p95 ms': round(level.p95) },
        },
      ]);
      console.log(
        `${String(concurrency).padStart(11)} ${fmt(level.rps).padStart(8)} ${fmt(level.p50).padStart(9)} ` +
          `${fmt(level.p95).padStart(9)}  ${level.errors}${level.firstError ? ` (first: ${level.firstError.slice(0, 200)})` : ''}` +
          (why ? `  <- breaks down: ${why}` : ''),
      );
    }
    const peaks = stopWatching();
    knee ??= levels.at(-1)!;
    console.log(
      knee === levels.at(-1)
        ? `no knee up to concurrency ${knee.concurrency} (BENCH_MAX_CONCURRENCY); figures at ${knee.concurrency}`
        : `knee: concurrency ${knee.concurrency}, ${fmt(knee.rps)} req/s, p50 ${fmt(knee.p50)} ms, p95 ${fmt(knee.p95)} ms`,
    );
    recordReliability('load', [
      {
        fault: 'knee',
        target: 'Extract Markdown',
        outcome:
          knee === levels.at(-1) ? `none up to concurrency ${knee.concurrency}` : `concurrency ${knee.concurrency}`,
        ok: true,
        figures: { concurrency: knee.concurrency, 'req/s': round(knee.rps), 'p50 ms': round(knee.p50) },
      },
    ]);
    for (const level of knee === levels[0] ? [knee] : [levels[0]!, knee]) {
      const bare = await activityMs(stack, level.ids.slice(-HISTORY_SAMPLE));
      recordReliability('load', [
        {
          fault: `service over bare read, concurrency ${level.concurrency}`,
          target: 'Extract Markdown',
          outcome: `${(level.p50 / bare.activity).toFixed(2)}x`,
          ok: true,
          figures: {
            'p50 ms': round(level.p50),
            'bare read ms': round(bare.activity),
            'download ms': round(bare.download),
          },
        },
      ]);
      console.log(
        `service over bare read at concurrency ${level.concurrency}: ${fmt(level.p50)} / ${fmt(bare.activity)} ms = ` +
          `${(level.p50 / bare.activity).toFixed(2)}x  (bare read: download ${fmt(bare.download)} ms + ` +
          `conversion ${fmt(bare.activity - bare.download)} ms, medians of ${Math.min(HISTORY_SAMPLE, level.ids.length)} runs)`,
      );
    }
    printMemory('during the Extract Markdown ramp', peaks);
    recordMemory('peak memory during the Extract Markdown ramp', peaks);
  } finally {
    close();
  }
}

interface StreamRead {
  runId: string;
  /** Each event's id and type, as received. */
  sequence: string[];
  events: number;
  /** Ids missing between two received, or after the last received when no final event came. */
  missing: number;
  /** Ids received again or out of order. */
  repeated: number;
  last: string;
  relay: number[];
  failure?: string;
}

/**
 * A Research stream read to its end, its ids checked against 1, 2, 3...: POST /research, or with
 * `runId` the run's whole log again from GET /v1/runs/{runId}/events.
 */
async function readStream(stack: Stack, start: { query: string } | { runId: string }): Promise<StreamRead> {
  const read: StreamRead = { runId: '', sequence: [], events: 0, missing: 0, repeated: 0, last: '', relay: [] };
  try {
    const headers = { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' };
    const signal = AbortSignal.timeout(STREAM_TIMEOUT_MS);
    const response =
      'runId' in start
        ? await fetch(`${stack.apiUrl}/runs/${start.runId}/events`, { headers, signal })
        : await fetch(`${stack.apiUrl}/research`, { method: 'POST', headers, body: JSON.stringify(start), signal });
    read.runId = response.headers.get('x-run-id') ?? '';
    if (response.status !== 200 || !response.body)
      return { ...read, failure: `HTTP ${response.status}: ${(await response.text()).slice(0, 200)}` };
    let expected = 1;
    for await (const { id, event, data, at } of sseMessages(response)) {
      if (!event || !data) continue;
      read.events++;
      read.sequence.push(`${id} ${event}`);
      read.last = event;
      const number = Number(id);
      if (!Number.isSafeInteger(number)) read.failure ??= `an event without a numeric id: ${id}`;
      else if (number < expected) read.repeated++;
      else {
        read.missing += number - expected;
        expected = number + 1;
      }
      const { timestamp } = JSON.parse(data) as { timestamp?: number };
      if (timestamp) read.relay.push(at - timestamp);
    }
  } catch (err) {
    read.failure = String(err);
  }
  if (read.last !== 'complete' && read.last !== 'error') read.failure ??= `ended after ${read.last || 'nothing'}`;
  return read;
}

async function heldStreams(stack: Stack): Promise<void> {
  await scriptInstantModel(stack);
  await readStream(stack, { query: 'warm up' });
  const reads: StreamRead[] = [];
  let open = 0;
  let fewestOpen = Infinity;
  let held = false;
  const stopWatching = watchMemory(stack.pids);
  const started = performance.now();
  const deadline = started + HOLD_SECONDS * 1000;
  let allOpenAfter = NaN;
  await Promise.all(
    Array.from({ length: STREAMS }, async (_, slot) => {
      for (let round = 0; performance.now() < deadline; round++) {
        open++;
        if (open === STREAMS && !held) {
          held = true;
          allOpenAfter = performance.now() - started;
        }
        reads.push(await readStream(stack, { query: `Held stream ${slot}, round ${round}` }));
        open--;
        if (held && performance.now() < deadline) fewestOpen = Math.min(fewestOpen, open);
      }
    }),
  );
  const wall = performance.now() - started;
  const peaks = stopWatching();
  const withRun = reads.filter((read) => read.runId);
  const unlike = await againstTheLog(stack, withRun);
  const perStream = reads.map((read) => read.events).sort((a, b) => a - b);
  const relay = reads.flatMap((read) => read.relay).sort((a, b) => a - b);
  const failures = reads.filter((read) => read.failure);
  const finals = new Map<string, number>();
  for (const read of reads) finals.set(read.last || 'none', (finals.get(read.last || 'none') ?? 0) + 1);
  console.log(
    `\n${STREAMS} Research streams held open ${HOLD_SECONDS} s (instant model and search stand-ins), each read to its end:`,
  );
  console.log(
    `  ${reads.length} streams in ${fmt(wall / 1000)} s; all ${STREAMS} open after ${fmt(allOpenAfter)} ms; ` +
      `fewest open while held (one ended, its successor not yet posted): ${Number.isFinite(fewestOpen) ? fewestOpen : STREAMS}`,
  );
  console.log(
    `  events per stream: min ${perStream[0]} p50 ${percentile(perStream, 50)} max ${perStream.at(-1)}; ` +
      `${perStream.reduce((sum, n) => sum + n, 0)} events`,
  );
  console.log(`  final events: ${[...finals].map(([event, n]) => `${event} ${n}`).join(', ')}`);
  console.log(
    `  dropped (ids skipped) ${reads.reduce((sum, read) => sum + read.missing, 0)}, ` +
      `repeated or out of order ${reads.reduce((sum, read) => sum + read.repeated, 0)}, ` +
      `streams failed or cut ${failures.length}${failures[0] ? ` (first: ${failures[0].failure!.slice(0, 200)})` : ''}`,
  );
  console.log(
    `  against each run's log read again from the start (GET /v1/runs/{runId}/events): ` +
      `${withRun.length - unlike.length} of ${withRun.length} the same${unlike[0] ? ` (first unlike: ${unlike[0]})` : ''}`,
  );
  console.log(
    `  relay latency (workflow records -> client has it): p50 ${fmt(percentile(relay, 50))} ms, ` +
      `p95 ${fmt(percentile(relay, 95))} ms (n=${relay.length})`,
  );
  printMemory('while the streams were held', peaks);
  const dropped = reads.reduce((sum, read) => sum + read.missing, 0);
  const repeated = reads.reduce((sum, read) => sum + read.repeated, 0);
  recordReliability('load', [
    {
      fault: `${STREAMS} streams held open ${HOLD_SECONDS} s`,
      target: 'Research',
      outcome:
        `${reads.length} streams, ${dropped} events dropped, ${repeated} repeated, ${failures.length} failed, ` +
        `${unlike.length} unlike their log`,
      ok: dropped === 0 && repeated === 0 && failures.length === 0 && unlike.length === 0,
      figures: {
        streams: reads.length,
        events: perStream.reduce((sum, n) => sum + n, 0),
        'fewest open': Number.isFinite(fewestOpen) ? fewestOpen : STREAMS,
        'relay p50 ms': round(percentile(relay, 50)),
        'relay p95 ms': round(percentile(relay, 95)),
      },
    },
  ]);
  recordMemory('peak memory while the streams were held', peaks);
}

/**
 * The streams whose events differ from their run's durable log, read again after the hold, a few at
 * a time: an event the live stream lost, repeated or reordered, even under ids that look right.
 */
async function againstTheLog(stack: Stack, reads: StreamRead[]): Promise<string[]> {
  const unlike: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: REREAD_CONCURRENCY }, async () => {
      while (next < reads.length) {
        const live = reads[next++]!;
        const again = await readStream(stack, { runId: live.runId });
        if (again.failure || again.sequence.join() !== live.sequence.join())
          unlike.push(
            `${live.runId}: live ${live.sequence.length} events, log ${again.sequence.length}${again.failure ? `, ${again.failure}` : ''}`,
          );
      }
    }),
  );
  return unlike;
}

const round = (n: number): number => Math.round(n * 10) / 10;

/** One row per process kind, largest first, as memoryLines prints them. */
function recordMemory(when: string, peaks: Record<string, KindPeak>): void {
  recordReliability(
    'load',
    Object.entries(peaks)
      .sort(([, a], [, b]) => b.total - a.total)
      .map(([kind, peak]) => ({
        fault: when,
        target: kind,
        outcome: `${round(peak.process)} MB`,
        ok: true,
        figures: { 'process MB': round(peak.process), processes: peak.count, 'total MB': round(peak.total) },
      })),
  );
}

function printMemory(when: string, peaks: Record<string, KindPeak>): void {
  console.log(`  peak resident memory ${when}, by process kind (largest one process):`);
  for (const line of memoryLines(peaks)) console.log(`    ${line}`);
}

async function main(): Promise<void> {
  const corpus = await startResearchCorpus();
  const search = await startSearchStandIn(corpus);
  const stack = await startStack(path.join(projectRoot(), 'data', 'bench-logs'), {
    SEARXNG_URL: search.baseUrl,
    LOG_LEVEL: 'warn',
  });
  try {
    console.log(`${SHORT ? 'short run' : 'full run'}; ${new Date().toISOString()}`);
    await markdownRamp(stack);
    await heldStreams(stack);
  } finally {
    await stopStack(stack);
    await search.close();
    await corpus.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
