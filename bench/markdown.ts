import path from 'node:path';
import { startStack, stopStack, type Stack } from '../test/support/localStack';
import { activityMs, articlePage, callApi, fmt, load, servePage } from './common';

/**
 * `npm run bench:markdown`: Extract Markdown end to end on the embedded stack (Temporal dev
 * server, worker and API processes) against a ~100 KB article served on loopback. Prints
 * latency percentiles at concurrency 1 and 16, throughput, and where the time goes.
 */

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 800);
const CONCURRENCY = 16;
const MAX_RUNS = Number(process.env.BENCH_MAX_RUNS ?? 20);

interface Options {
  effort: 'min' | 'standard' | 'max';
  nocache: boolean;
}

const UNCACHED_MIN: Options = { effort: 'min', nocache: true };

const extract = (stack: Stack, url: string, options: Options) =>
  callApi(stack, '/extract/markdown', { url, ...options });

const runAt = (stack: Stack, url: string, total: number, concurrency: number, options = UNCACHED_MIN) =>
  load(total, concurrency, () => extract(stack, url, options));

async function main(): Promise<void> {
  const page = articlePage();
  const { url, close } = await servePage(page);
  const stack = await startStack(path.resolve(__dirname, '..', '..', 'data', 'bench-logs'), { LOG_LEVEL: 'warn' });
  try {
    console.log(
      `page: ${(Buffer.byteLength(page) / 1024).toFixed(0)} KB; ${SEQUENTIAL} requests at concurrency 1, ${PARALLEL} at ${CONCURRENCY}`,
    );
    await runAt(stack, url, 30, 4);
    const one = await runAt(stack, url, SEQUENTIAL, 1);
    const many = await runAt(stack, url, PARALLEL, CONCURRENCY);
    const work = await activityMs(stack, one.ids.slice(-50));
    const standard = await runAt(stack, url, Math.ceil(SEQUENTIAL / 2), 1, { effort: 'standard', nocache: true });
    await runAt(stack, url, 3, 1, { effort: 'max', nocache: true });
    const max = await runAt(stack, url, MAX_RUNS, 1, { effort: 'max', nocache: true });
    await extract(stack, url, { effort: 'min', nocache: false });
    const hit = await runAt(stack, url, SEQUENTIAL, 1, { effort: 'min', nocache: false });
    console.log(`min, concurrency 1:  p50 ${fmt(one.p50)} ms  p95 ${fmt(one.p95)} ms  ${fmt(one.rps)} req/s`);
    console.log(
      `min, concurrency ${CONCURRENCY}: p50 ${fmt(many.p50)} ms  p95 ${fmt(many.p95)} ms  ${fmt(many.rps)} req/s`,
    );
    console.log(`standard:            p50 ${fmt(standard.p50)} ms  p95 ${fmt(standard.p95)} ms`);
    console.log(`max (Chromium):      p50 ${fmt(max.p50)} ms  p95 ${fmt(max.p95)} ms`);
    console.log(`cache hit:           p50 ${fmt(hit.p50)} ms  p95 ${fmt(hit.p95)} ms`);
    console.log(
      `time split at concurrency 1 (medians): fetch activity ${fmt(work.activity)} ms ` +
        `(download ${fmt(work.download)} ms, read ${fmt(work.activity - work.download)} ms), ` +
        `Temporal + API overhead ${fmt(one.p50 - work.activity)} ms`,
    );
    const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
    console.log(
      `targets: min p50 < 60 ms -> ${verdict(one.p50 < 60)}; >= 50 req/s at 16 -> ${verdict(many.rps >= 50)}; ` +
        `cache hit p50 < 10 ms -> ${verdict(hit.p50 < 10)}; max p50 < 1500 ms -> ${verdict(max.p50 < 1500)}`,
    );
  } finally {
    await stopStack(stack);
    close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
