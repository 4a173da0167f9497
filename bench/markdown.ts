import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { FIXTURE_HOST, startStack, stopStack, type Stack } from '../src/stack/localStack';

/**
 * `npm run bench:markdown`: Extract Markdown end to end on the embedded stack (Temporal dev
 * server, worker and API processes) against a ~100 KB article served on loopback. Prints
 * latency percentiles at concurrency 1 and 16, throughput, and where the time goes.
 */

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 800);
const CONCURRENCY = 16;
const MAX_RUNS = Number(process.env.BENCH_MAX_RUNS ?? 20);

function articlePage(): string {
  const words = 'harbour quay fishermen tide morning council vote history nets boats knot salt stone church street water town'.split(' ');
  const sentence = (i: number) => Array.from({ length: 18 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
  const paragraphs = Array.from({ length: 320 }, (_, i) => `<p>${sentence(i)}. ${sentence(i + 1)}, <a href="/note/${i}">note ${i}</a>.</p>`);
  const nav = Array.from({ length: 60 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join('');
  const sections = paragraphs.map((p, i) => (i % 20 === 0 ? `<h2>Part ${i / 20 + 1}</h2>${p}` : p)).join('\n');
  return `<!doctype html><html><head><title>Benchmark article</title>
<meta property="og:title" content="Benchmark article"><meta name="description" content="A long article for benchmarks">
<link rel="icon" href="/favicon.ico"></head><body>
<header><nav><ul>${nav}</ul></nav></header>
<main><article><h1>Benchmark article</h1>${sections}</article></main>
<aside><ul>${nav}</ul></aside><footer>${nav}</footer></body></html>`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

interface Options {
  effort: 'min' | 'standard' | 'max';
  nocache: boolean;
}

const UNCACHED_MIN: Options = { effort: 'min', nocache: true };

async function extract(stack: Stack, url: string, options: Options): Promise<{ ms: number; workflowId: string }> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, ...options }),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  return { ms: performance.now() - started, workflowId: response.headers.get('x-workflow-id') ?? '' };
}

async function runAt(stack: Stack, url: string, total: number, concurrency: number, options = UNCACHED_MIN) {
  const latencies: number[] = [];
  const ids: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const { ms, workflowId } = await extract(stack, url, options);
        latencies.push(ms);
        ids.push(workflowId);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), rps: total / seconds, ids };
}

/** Activity time (fetch + convert as the server recorded it) for a sample of runs. */
async function activityMs(stack: Stack, ids: string[]): Promise<{ fetch: number; convert: number }> {
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: stack.namespace });
  const fetchTimes: number[] = [];
  const convertTimes: number[] = [];
  try {
    for (const id of ids) {
      const history = await client.workflow.getHandle(id).fetchHistory();
      const scheduled = new Map<number, string>();
      const startedAt = new Map<number, number>();
      for (const event of history.events ?? []) {
        const at = Number(event.eventTime?.seconds ?? 0) * 1000 + Math.floor((event.eventTime?.nanos ?? 0) / 1e6);
        const id = Number(event.eventId);
        if (event.activityTaskScheduledEventAttributes) scheduled.set(id, event.activityTaskScheduledEventAttributes.activityType?.name ?? '');
        if (event.activityTaskStartedEventAttributes) startedAt.set(Number(event.activityTaskStartedEventAttributes.scheduledEventId), at);
        const done = event.activityTaskCompletedEventAttributes;
        if (done) {
          const scheduledId = Number(done.scheduledEventId);
          const ms = at - (startedAt.get(scheduledId) ?? at);
          (scheduled.get(scheduledId) === 'fetchPage' ? fetchTimes : convertTimes).push(ms);
        }
      }
    }
  } finally {
    await connection.close();
  }
  const median = (values: number[]) => percentile([...values].sort((a, b) => a - b), 50);
  return { fetch: median(fetchTimes), convert: median(convertTimes) };
}

async function main(): Promise<void> {
  const page = articlePage();
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page));
  await new Promise<void>((resolve) => server.listen(0, FIXTURE_HOST, resolve));
  const url = `http://${FIXTURE_HOST}:${(server.address() as AddressInfo).port}/article`;
  const stack = await startStack(path.resolve(__dirname, '..', '..', 'data', 'bench-logs'), { LOG_LEVEL: 'warn' });
  try {
    console.log(`page: ${(Buffer.byteLength(page) / 1024).toFixed(0)} KB; ${SEQUENTIAL} requests at concurrency 1, ${PARALLEL} at ${CONCURRENCY}`);
    await runAt(stack, url, 30, 4);
    const one = await runAt(stack, url, SEQUENTIAL, 1);
    const many = await runAt(stack, url, PARALLEL, CONCURRENCY);
    const work = await activityMs(stack, one.ids.slice(-50));
    const standard = await runAt(stack, url, Math.ceil(SEQUENTIAL / 2), 1, { effort: 'standard', nocache: true });
    await runAt(stack, url, 3, 1, { effort: 'max', nocache: true });
    const max = await runAt(stack, url, MAX_RUNS, 1, { effort: 'max', nocache: true });
    await extract(stack, url, { effort: 'min', nocache: false });
    const hit = await runAt(stack, url, SEQUENTIAL, 1, { effort: 'min', nocache: false });
    const fmt = (n: number) => n.toFixed(1);
    console.log(`min, concurrency 1:  p50 ${fmt(one.p50)} ms  p95 ${fmt(one.p95)} ms  ${fmt(one.rps)} req/s`);
    console.log(`min, concurrency ${CONCURRENCY}: p50 ${fmt(many.p50)} ms  p95 ${fmt(many.p95)} ms  ${fmt(many.rps)} req/s`);
    console.log(`standard:            p50 ${fmt(standard.p50)} ms  p95 ${fmt(standard.p95)} ms`);
    console.log(`max (Chromium):      p50 ${fmt(max.p50)} ms  p95 ${fmt(max.p95)} ms`);
    console.log(`cache hit:           p50 ${fmt(hit.p50)} ms  p95 ${fmt(hit.p95)} ms`);
    console.log(
      `time split at concurrency 1 (medians): fetch activity ${fmt(work.fetch)} ms, convert activity ${fmt(work.convert)} ms, ` +
        `Temporal + API overhead ${fmt(one.p50 - work.fetch - work.convert)} ms`,
    );
    const verdict = (ok: boolean) => (ok ? 'met' : 'missed');
    console.log(
      `targets: min p50 < 60 ms -> ${verdict(one.p50 < 60)}; >= 50 req/s at 16 -> ${verdict(many.rps >= 50)}; ` +
        `cache hit p50 < 20 ms -> ${verdict(hit.p50 < 20)}; max p50 < 1500 ms -> ${verdict(max.p50 < 1500)}`,
    );
  } finally {
    await stopStack(stack);
    server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
