import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApiDeps, createApp } from '../../src/api/app';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/logger';
import { dataConverter } from '../../src/payloadCodec';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { apiUrl, post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';

/**
 * What an operator sees of the stack: its log lines, each naming the organization and run it
 * belongs to, in the log files of the shared stack's processes; and the metrics Prometheus
 * scrapes from the API and from each worker process.
 */

const LOGS = path.resolve(__dirname, '..', '..', 'data', 'test-logs');
const DIST = path.resolve(__dirname, '..', '..', 'dist', 'src');
const stackEnv = () => JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv;
const base = () => apiUrl().replace(/\/v1$/, '');

const ARTICLE = `<html><head><title>Observed</title></head><body><article><h1>Observed</h1>
<p>${'A page whose every step the logs and the metrics follow. '.repeat(6)}</p></article></body></html>`;

let fixtures: FixtureServer;
let gateHits = 0;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/article': html(ARTICLE),
    // The first request is refused, as a site that blocks plain clients does; the browser's gets the page.
    '/blocked-once': (_req, res) => {
      const blocked = gateHits++ === 0;
      res.writeHead(blocked ? 403 : 200, { 'content-type': 'text/html' }).end(blocked ? 'Forbidden' : ARTICLE);
    },
  });
});

afterAll(async () => {
  await fixtures?.close();
});

type LogLine = Record<string, unknown>;

async function logLines(file: string): Promise<LogLine[]> {
  const text = await readFile(path.join(LOGS, file), 'utf8').catch(() => '');
  return text.split('\n').flatMap((line) => {
    try {
      const parsed: unknown = JSON.parse(line);
      return parsed && typeof parsed === 'object' ? [parsed as LogLine] : [];
    } catch {
      return [];
    }
  });
}

/** The lines of a log file that match, once there are any (the processes write them a little later). */
async function linesOf(file: string, match: (line: LogLine) => boolean): Promise<LogLine[]> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const lines = (await logLines(file)).filter(match);
    if (lines.length > 0 || Date.now() > deadline) return lines;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('logs', () => {
  test('every line about a request names its organization, workflow id and run id', async () => {
    const res = await post('/extract/markdown', { url: fixtures.url('/blocked-once'), nocache: true });
    expect(res.status).toBe(200);
    const workflowId = res.headers.get('x-workflow-id')!;
    expect(workflowId).toMatch(/^test-org\/extract-markdown\//);
    const ofRun = (line: LogLine) => line.workflowId === workflowId;

    const api = await linesOf('api.log', (line) => ofRun(line) && line.msg === 'request');
    const workflow = await linesOf('worker-workflow.log', ofRun);
    const activity = await linesOf('worker-fetch.log', ofRun);
    expect(api).toHaveLength(1);
    const runId = api[0]!.runId;
    expect(runId).toMatch(/^[0-9a-f-]{36}$/);
    // The workflow turned to the browser, and the fetch activity's failure was logged on the way.
    expect(workflow.map((line) => line.msg)).toContain('the fetch was blocked; rendering the page');
    expect(activity.map((line) => line.msg)).toContain('Activity failed');
    for (const line of [...api, ...workflow, ...activity]) {
      expect({ msg: line.msg, organization: line.organization, runId: line.runId }).toEqual({
        msg: line.msg,
        organization: 'test-org',
        runId,
      });
    }
    expect(activity[0]).toMatchObject({ activityType: 'fetchPage', attempt: 1 });
    expect(activity[0]).not.toHaveProperty('taskToken');
  });
});

/** The value of one sample of a Prometheus text exposition, 0 when it is not there (yet). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return 0;
}

async function scrape(url: string, token?: string): Promise<string> {
  const res = await fetch(url, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text();
}

/** Where a worker process of the stack serves its metrics: it picked a free port and logged it. */
async function workerMetricsUrl(file: string): Promise<string> {
  const lines = await linesOf(file, (line) => line.msg === 'metrics listening');
  expect(lines.length).toBeGreaterThan(0);
  return String(lines.at(-1)!.url);
}

describe('metrics', () => {
  test('the API counts requests by route and status, runs started and cache lookups', async () => {
    const before = await scrape(`${base()}/metrics`);
    const url = fixtures.url(`/article?metrics=${Date.now()}`);
    expect((await post('/extract/markdown', { url })).headers.get('x-cache')).toBe('miss');
    expect((await post('/extract/markdown', { url })).headers.get('x-cache')).toBe('hit');
    expect((await post('/extract/markdown', { url: 'not a url' })).status).toBe(422);
    const after = await scrape(`${base()}/metrics`);
    const grew = (name: string, labels: Record<string, string>) =>
      sample(after, name, labels) - sample(before, name, labels);

    const route = { method: 'POST', route: '/v1/extract/markdown' };
    expect(grew('webloom_http_requests_total', { ...route, status: '200' })).toBe(2);
    expect(grew('webloom_http_requests_total', { ...route, status: '422' })).toBe(1);
    expect(grew('webloom_http_request_duration_seconds_count', { ...route, status: '200' })).toBe(2);
    expect(grew('webloom_runs_started_total', { operation: 'extract-markdown' })).toBe(1);
    expect(grew('webloom_cache_lookups_total', { result: 'miss' })).toBe(1);
    expect(grew('webloom_cache_lookups_total', { result: 'hit' })).toBe(1);
    expect(after).toContain('# TYPE webloom_event_streams_open gauge');
    expect(sample(after, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
    // An unknown path is one label, whatever the path.
    await fetch(`${base()}/v1/no/such/${Date.now()}`);
    expect(
      sample(await scrape(`${base()}/metrics`), 'webloom_http_requests_total', { route: 'unmatched' }),
    ).toBeGreaterThan(0);
  });

  test("a worker process serves its activity metrics and the Temporal SDK's on one port", async () => {
    const metricsUrl = await workerMetricsUrl('worker-fetch.log');
    const before = await scrape(metricsUrl);
    const res = await post('/extract/markdown', { url: fixtures.url('/article'), effort: 'min', nocache: true });
    expect(res.status).toBe(200);
    const after = await scrape(metricsUrl);
    const fetched = { activity_type: 'fetchPage', result: 'completed' };
    expect(sample(after, 'webloom_activity_executions_total', fetched)).toBe(
      sample(before, 'webloom_activity_executions_total', fetched) + 1,
    );
    expect(sample(after, 'webloom_activity_duration_seconds_count', fetched)).toBeGreaterThan(0);
    // The SDK's own, from its exporter, in the same answer.
    expect(after).toMatch(/^temporal_activity_execution_latency_count\{.*activity_type="fetchPage"/m);
    expect(sample(after, 'temporal_num_pollers', { poller_type: 'activity_task' })).toBeGreaterThan(0);
    // The workflow worker's process has its own port.
    const workflowMetrics = await scrape(await workerMetricsUrl('worker-workflow.log'));
    expect(workflowMetrics).toMatch(/^temporal_workflow_completed\{/m);
    expect(new URL(await workerMetricsUrl('worker-workflow.log')).port).not.toBe(new URL(metricsUrl).port);
  });

  test('with METRICS_TOKEN set, /metrics asks for it', async () => {
    const token = 'metrics-token-0123456789';
    const api = await inProcessApi({ METRICS_TOKEN: token });
    try {
      expect((await fetch(`${api.url}/metrics`)).status).toBe(401);
      const wrong = { authorization: 'Bearer wrong-token-0123456789' };
      expect((await fetch(`${api.url}/metrics`, { headers: wrong })).status).toBe(401);
      expect(await scrape(`${api.url}/metrics`, token)).toContain('webloom_http_requests_total');
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
    } finally {
      await api.close();
    }
  });
});

/** An API in this process (the real app) with the stack's settings and these changes. */
async function inProcessApi(changes: NodeJS.ProcessEnv): Promise<{ url: string; close(): Promise<void> }> {
  const config = loadConfig({ ...stackEnv(), ...changes });
  const connection = await Connection.connect({ address: config.temporal.address });
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  const logger = createLogger('error', 'observability');
  const server: Server = createApp(createApiDeps(config, client, logger), logger).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: async () => {
      server.close();
      await connection.close();
    },
  };
}

describe('health and readiness', () => {
  test('the API is alive and ready when a worker polls every queue it needs', async () => {
    expect(await (await fetch(`${base()}/health`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${base()}/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; queues: Record<string, { type: string; pollers: number }> };
    expect(body.status).toBe('ready');
    expect(Object.keys(body.queues).sort()).toEqual([
      'webloom-browser',
      'webloom-fetch',
      'webloom-model',
      'webloom-workflows',
    ]);
    for (const queue of Object.values(body.queues)) expect(queue.pollers).toBeGreaterThan(0);
  });

  test('the API is not ready while no worker polls its queues, and ready once one does', async () => {
    const prefix = `observe-ready-${Date.now()}`;
    const api = await inProcessApi({ TASK_QUEUE_PREFIX: prefix });
    let worker: Child | undefined;
    try {
      const idle = await fetch(`${api.url}/ready`);
      expect(idle.status).toBe(503);
      expect(await idle.json()).toMatchObject({
        status: 'not ready',
        missing: [
          `no worker polls ${prefix}-workflows for workflow tasks`,
          `no worker polls ${prefix}-fetch for activity tasks`,
          `no worker polls ${prefix}-browser for activity tasks`,
          `no worker polls ${prefix}-model for activity tasks`,
        ],
      });
      // Alive all the same, and no key asked for.
      expect((await fetch(`${api.url}/health`)).status).toBe(200);
      worker = spawnChild('observe worker', process.execPath, [path.join(DIST, 'workers/main.js')], {
        env: { ...stackEnv(), TASK_QUEUE_PREFIX: prefix },
        onLine: () => undefined,
      });
      await waitUntil(
        'the API to be ready',
        worker,
        async () => (await fetch(`${api.url}/ready`)).status === 200,
        30_000,
      );
    } finally {
      await worker?.stop();
      await api.close();
    }
  });

  test('a worker process answers /health and /ready on its metrics port', async () => {
    const at = (await workerMetricsUrl('worker-fetch.log')).replace(/\/metrics$/, '');
    expect(await (await fetch(`${at}/health`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${at}/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      workers: { 'webloom-fetch': 'RUNNING', 'webloom-browser': 'RUNNING' },
    });
  });
});
