import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { FIXTURE_HOST, startStack, type Stack, type StackTopology } from '../test/support/localStack';
import { breakdown } from './requestTrace';

/** What the end-to-end benchmarks share: the page they serve and the load loop they run. */

export function articlePage(): string {
  const words =
    'harbour quay fishermen tide morning council vote history nets boats knot salt stone church street water town'.split(
      ' ',
    );
  const sentence = (i: number) => Array.from({ length: 18 }, (_, j) => words[(i * 7 + j * 3) % words.length]).join(' ');
  const paragraphs = Array.from(
    { length: 320 },
    (_, i) => `<p>${sentence(i)}. ${sentence(i + 1)}, <a href="/note/${i}">note ${i}</a>.</p>`,
  );
  const nav = Array.from({ length: 60 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join('');
  const sections = paragraphs.map((p, i) => (i % 20 === 0 ? `<h2>Part ${i / 20 + 1}</h2>${p}` : p)).join('\n');
  return `<!doctype html><html><head><title>Benchmark article</title>
<meta property="og:title" content="Benchmark article"><meta name="description" content="A long article for benchmarks">
<link rel="icon" href="/favicon.ico"></head><body>
<header><nav><ul>${nav}</ul></nav></header>
<main><article><h1>Benchmark article</h1>${sections}</article></main>
<aside><ul>${nav}</ul></aside><footer>${nav}</footer></body></html>`;
}

/** Serves `page` on the fixture host; returns its URL and a closer. */
export async function servePage(page: string): Promise<{ url: string; close: () => void }> {
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page),
  );
  await new Promise<void>((resolve) => server.listen(0, FIXTURE_HOST, resolve));
  return {
    url: `http://${FIXTURE_HOST}:${(server.address() as AddressInfo).port}/article`,
    close: () => server.close(),
  };
}

/** `BENCH_TOPOLOGY`: `dev` (the default), the stack `npm start` runs, or `cluster`, `npm run start:cluster`'s. */
export function benchTopology(value = process.env.BENCH_TOPOLOGY ?? 'dev'): StackTopology {
  if (value === 'dev' || value === 'cluster') return value;
  throw new Error(`BENCH_TOPOLOGY is ${value}: it must be dev or cluster`);
}

/**
 * The stack of BENCH_TOPOLOGY. Each read of its `apiUrl` gives the next API replica, as a load
 * balancer would hand out requests, so on the cluster both replicas share the load.
 */
export async function startBenchStack(logDir: string, extraEnv: NodeJS.ProcessEnv): Promise<Stack> {
  const topology = benchTopology();
  const stack = await startStack(logDir, extraEnv, topology);
  console.log(`topology: ${topology} (BENCH_TOPOLOGY), ${stack.apiUrls.length} API replica(s)`);
  let next = 0;
  return Object.defineProperty({ ...stack }, 'apiUrl', {
    get: () => stack.apiUrls[next++ % stack.apiUrls.length]!,
  });
}

export function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

export async function callApi(stack: Stack, path: string, body: unknown): Promise<{ ms: number; workflowId: string }> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status} from ${path}: ${text.slice(0, 300)}`);
  return { ms: performance.now() - started, workflowId: response.headers.get('x-workflow-id') ?? '' };
}

export interface LoadResult {
  p50: number;
  p95: number;
  rps: number;
  ids: string[];
}

/** `total` calls, `concurrency` at a time; latency percentiles and throughput. */
export async function load(
  total: number,
  concurrency: number,
  call: () => Promise<{ ms: number; workflowId: string }>,
): Promise<LoadResult> {
  const latencies: number[] = [];
  const ids: string[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const { ms, workflowId } = await call();
        latencies.push(ms);
        ids.push(workflowId);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return { p50: percentile(latencies, 50), p95: percentile(latencies, 95), rps: total / seconds, ids };
}

/**
 * Where a run's time went, for a sample of runs: the fetch activity (download and read, as it
 * reports them), and within it the download. Medians.
 */
export async function activityMs(stack: Stack, ids: string[]): Promise<{ activity: number; download: number }> {
  // No client times here: only the runs' own figures are asked for.
  const calls = ids.map((workflowId) => ({ workflowId, sentAt: NaN, answeredAt: NaN }));
  const { workMs, downloadMs } = await breakdown(stack, calls);
  return { activity: workMs, download: downloadMs };
}

export const fmt = (n: number): string => n.toFixed(1);
