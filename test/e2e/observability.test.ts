import { createWriteStream } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../src/api/app';
import { createApiDeps } from '../../src/api/deps';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/telemetry/logger';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { apiKey, apiUrl, apiUrls, post } from '../support/api';
import { testTopology } from '../support/localStack';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { StandInScript } from '../support/modelStandIn';
import { SLOW_PATH, startResearchCorpus } from '../support/researchCorpus';
import { startSearchStandIn } from '../support/searchStandIn';
import { startSecondApi } from '../support/secondApi';
import { SseStream } from '../support/sseClient';
import { eventually } from '../support/eventually';

/**
 * What an operator sees of the stack: its log lines, each naming the organization and run it
 * belongs to, in the log files of the shared stack's processes; the metrics Prometheus scrapes
 * from the API and from each worker process; health and readiness; and how the API and a worker
 * stop on SIGTERM (processes of their own, on task queues of their own, on the shared Temporal).
 */

const LOGS = path.resolve(__dirname, '..', '..', 'data', 'test-logs');
const DIST = path.resolve(__dirname, '..', '..', 'dist', 'src');
/** One API replica, the same at every call: its metrics count only the requests it served. */
const base = () => apiUrls()[0]!.replace(/\/v1$/, '');
const stackEnv = () => JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv;

const ARTICLE = `<html><head><title>Observed</title></head><body><article><h1>Observed</h1>
<p>${'A page whose every step the logs and the metrics follow. '.repeat(6)}</p></article></body></html>`;

let fixtures: FixtureServer;
let gateHits = 0;
let slowHits = 0;
const SLOW_PAGE_MS = 3000;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/article': html(ARTICLE),
    '/slow': (_req, res) => {
      slowHits++;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE), SLOW_PAGE_MS);
    },
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

/**
 * The log files of the stack's processes of one kind: `api.log` on the dev stack, `api-1.log` and
 * `api-2.log` for the cluster's replicas (and so for `worker-fetch`, `worker-workflow`...).
 */
async function logFiles(kind: string): Promise<string[]> {
  const pattern = new RegExp(`^${kind}(-\\d+)?\\.log$`);
  return (await readdir(LOGS)).filter((file) => pattern.test(file));
}

/** The JSON lines of the stack's processes of one kind, file after file. */
async function logLines(kind: string): Promise<LogLine[]> {
  const files = await logFiles(kind);
  return (await Promise.all(files.map((file) => fileLines(file)))).flat();
}

async function fileLines(file: string): Promise<LogLine[]> {
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
async function linesOf(kind: string, match: (line: LogLine) => boolean): Promise<LogLine[]> {
  return eventually(
    async () => {
      const lines = (await logLines(kind)).filter(match);
      return lines.length > 0 && lines;
    },
    { what: `matching lines in the ${kind} logs`, timeoutMs: 10_000, intervalMs: 200 },
  );
}

describe('logs', () => {
  test('every line about a request names its organization, workflow id and run id', async () => {
    const res = await post('/extract/markdown', { url: fixtures.url('/blocked-once'), nocache: true });
    expect(res.status).toBe(200);
    const workflowId = res.headers.get('x-workflow-id')!;
    expect(workflowId).toMatch(/^test-org\/extract-markdown\//);
    const ofRun = (line: LogLine) => line.workflowId === workflowId;

    const api = await linesOf('api', (line) => ofRun(line) && line.msg === 'request');
    const workflow = await linesOf('worker-workflow', ofRun);
    const activity = await linesOf('worker-fetch', ofRun);
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

/**
 * Where each worker process of one kind serves its metrics (one on the dev stack, each replica on
 * the cluster): it picked a free port and logged it.
 */
async function workerMetricsUrls(kind: string): Promise<string[]> {
  await linesOf(kind, (line) => line.msg === 'metrics listening');
  const files = await logFiles(kind);
  return Promise.all(
    files.map(async (file) => {
      const lines = (await fileLines(file)).filter((line) => line.msg === 'metrics listening');
      expect({ file, listening: lines.length > 0 }).toEqual({ file, listening: true });
      return String(lines.at(-1)!.url);
    }),
  );
}

/** Extract Markdown on that one replica. */
async function extractThere(body: unknown): Promise<Response> {
  return fetch(`${base()}/v1/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
    body: json(body),
  });
}

describe('metrics', () => {
  test('the API counts requests by route and status, runs started and cache lookups', async () => {
    const before = await scrape(`${base()}/metrics`);
    const url = fixtures.url(`/article?metrics=${Date.now()}`);
    expect((await extractThere({ url })).headers.get('x-cache')).toBe('miss');
    expect((await extractThere({ url })).headers.get('x-cache')).toBe('hit');
    expect((await extractThere({ url: 'not a url' })).status).toBe(422);
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
    // On the cluster either fetch replica may take the activity: their counts are summed.
    const metricsUrls = await workerMetricsUrls('worker-fetch');
    const scrapeAll = () => Promise.all(metricsUrls.map((url) => scrape(url)));
    const fetched = { activity_type: 'fetchPage', result: 'completed' };
    const executions = (texts: string[]) =>
      texts.reduce((sum, text) => sum + sample(text, 'webloom_activity_executions_total', fetched), 0);
    const before = await scrapeAll();
    const res = await post('/extract/markdown', { url: fixtures.url('/article'), effort: 'min', nocache: true });
    expect(res.status).toBe(200);
    const afterEach = await scrapeAll();
    expect(executions(afterEach)).toBe(executions(before) + 1);
    const after = afterEach.join('\n');
    expect(sample(after, 'webloom_activity_duration_seconds_count', fetched)).toBeGreaterThan(0);
    // The SDK's own, from its exporter, in the same answer.
    expect(after).toMatch(/^temporal_activity_execution_latency_count\{.*activity_type="fetchPage"/m);
    expect(sample(after, 'temporal_num_pollers', { poller_type: 'activity_task' })).toBeGreaterThan(0);
    // The workflow workers' processes have ports of their own; on the cluster either may have run it.
    const workflowUrls = await workerMetricsUrls('worker-workflow');
    expect((await Promise.all(workflowUrls.map((url) => scrape(url)))).join('\n')).toMatch(
      /^temporal_workflow_completed\{/m,
    );
    const ports = (urls: string[]) => urls.map((url) => new URL(url).port);
    for (const port of ports(workflowUrls)) expect(ports(metricsUrls)).not.toContain(port);
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
  // The search queue is needed only where a search engine is set: on the cluster, not on the dev stack.
  const searches = Boolean(stackEnv().SEARXNG_URL);

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
      ...(searches ? ['webloom-search'] : []),
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
          ...(searches ? [`no worker polls ${prefix}-search for activity tasks`] : []),
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
    // The dev stack fetches and renders in one process; the cluster gives each role processes of their own.
    const onCluster = testTopology() === 'cluster';
    const [metricsUrl] = await workerMetricsUrls(onCluster ? 'worker-browser' : 'worker-fetch');
    const at = metricsUrl!.replace(/\/metrics$/, '');
    expect(await (await fetch(`${at}/health`)).json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${at}/ready`);
    expect(ready.status).toBe(200);
    const body = (await ready.json()) as { status: string; workers: Record<string, string> };
    // The browser role also polls a queue of its own, for the Automate sessions it holds.
    const [sessionQueue, ...others] = Object.keys(body.workers).filter((queue) => queue.startsWith('webloom-browser-'));
    expect(others).toEqual([]);
    expect(sessionQueue).toMatch(/^webloom-browser-session-/);
    expect(body).toEqual({
      status: 'ready',
      workers: {
        ...(onCluster ? {} : { 'webloom-fetch': 'RUNNING' }),
        'webloom-browser': 'RUNNING',
        [sessionQueue!]: 'RUNNING',
      },
    });
  });
});

/** Starts an API or worker process as built, with the stack's settings and these changes, logging to a file. */
function spawnProcess(name: string, script: string, args: string[], changes: NodeJS.ProcessEnv): Child {
  const log = createWriteStream(path.join(LOGS, `observe-${name}.log`));
  const child = spawnChild(`observe ${name}`, process.execPath, [path.join(DIST, script), ...args], {
    env: { ...stackEnv(), ...changes },
    onLine: (line) => log.write(`${line}\n`),
  });
  void child.exited.then(() => log.end());
  return child;
}

const json = (value: unknown): string => JSON.stringify(value);

/** A research run whose answers are all scripted, so it completes whatever the pages say. */
const RESEARCH_SCRIPT: StandInScript = {
  replies: [],
  byFormat: {
    research_plan: [
      {
        content: json({
          objective: 'How volcanoes are watched.',
          plan: 'Read the named page.',
          complexity: 'simple',
          questions: ['How are volcanoes monitored?', 'What do the stations measure?'],
          queries: ['monitoring stations seismometers'],
        }),
        keep: true,
      },
    ],
    page_analysis: [
      {
        content: json({
          relevance: 'high',
          reliability: 'high',
          summary: 'Monitoring stations.',
          keyFacts: ['Seismometers watch the volcanoes.'],
          promisingLinks: [],
        }),
        keep: true,
      },
    ],
    research_report: [
      { content: json({ report: '# Watching volcanoes\n\nSeismometers watch them [1].' }), keep: true },
    ],
    report_review: [{ content: json({ approved: true, score: 8, observation: 'Sound.', feedback: '' }), keep: true }],
    research_answer: [{ content: json({ report: 'Seismometers watch them [1].' }), keep: true }],
  },
};

describe('graceful shutdown', () => {
  test('an API told to stop refuses new connections, finishes requests in flight, and ends event streams where the client resumes on another API', async () => {
    const corpus = await startResearchCorpus();
    const search = await startSearchStandIn(corpus);
    const changes = {
      TASK_QUEUE_PREFIX: 'observe-drain',
      SEARXNG_URL: search.baseUrl,
      CACHE_DIR: path.join(LOGS, 'observe-drain-cache'),
      SHUTDOWN_GRACE_MS: '20000',
    };
    const worker = spawnProcess('drain-worker', 'workers/main.js', ['workflow,model,fetch,browser'], changes);
    const drainLog = createWriteStream(path.join(LOGS, 'observe-drain-api.log'));
    const started = await startSecondApi('observe drain-api', {
      env: { ...stackEnv(), ...changes },
      onLine: (line) => drainLog.write(`${line}\n`),
      ready: async (root) => (await fetch(`${root}/ready`)).status === 200,
    }).catch(async (err: unknown) => {
      await worker.stop();
      throw err;
    });
    const api = started.child;
    void api.exited.then(() => drainLog.end());
    const at = started.root;
    try {
      await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: json(RESEARCH_SCRIPT) });
      // The query names a page that takes seconds to load: the run is still reading it when the API stops.
      const stream = await SseStream.open(`${at}/v1/research`, {
        key: apiKey(),
        method: 'POST',
        body: { query: `What does ${corpus.url(SLOW_PATH)} say about monitoring?`, nocache: true },
      });
      const runId = stream.response.headers.get('x-run-id')!;
      await stream.until((s) => s.events.some((event) => event.event === 'prefetching:start'));
      const hits = slowHits;
      const inFlight = fetch(`${at}/v1/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
        body: json({ url: fixtures.url('/slow'), nocache: true }),
      });
      await eventually(() => slowHits > hits, { what: 'the slow page to be asked for', timeoutMs: 10_000 });

      const stopping = Date.now();
      api.process.kill('SIGTERM');
      await stream.finished;
      expect(Date.now() - stopping).toBeLessThan(2000);
      expect(stream.raw).toContain(
        `: server shutting down; resume at GET /v1/runs/${runId}/events with Last-Event-ID\n`,
      );
      expect(stream.events.map((event) => event.event)).not.toContain('complete');
      await expect(fetch(`${at}/health`)).rejects.toThrow();
      // The request in flight is still answered, then the process exits.
      const answer = await inFlight;
      expect(answer.status).toBe(200);
      expect(((await answer.json()) as { content: string }).content).toContain('every step the logs');
      expect(await api.exited).toBe(0);

      const lastId = Number(stream.events.at(-1)!.id);
      const resumed = await SseStream.open(`${apiUrl()}/runs/${runId}/events`, { key: apiKey(), lastEventId: lastId });
      await resumed.finished;
      const ids = resumed.events.map((event) => Number(event.id));
      expect(ids).toEqual(ids.map((_id, index) => lastId + 1 + index));
      expect(resumed.events.at(-1)!.event).toBe('complete');
    } finally {
      await Promise.all([api.stop(), worker.stop()]);
      await search.close();
      await corpus.close();
    }
  }, 120_000);

  test('a worker told to stop finishes the activity it holds before it exits', async () => {
    const changes = { TASK_QUEUE_PREFIX: 'observe-worker-stop', SHUTDOWN_GRACE_MS: '20000' };
    const workflows = spawnProcess('stop-workflow-worker', 'workers/main.js', ['workflow'], changes);
    const fetcher = spawnProcess('stop-fetch-worker', 'workers/main.js', ['fetch'], changes);
    const api = await inProcessApi(changes);
    try {
      await waitUntil(
        'the workers to poll',
        fetcher,
        async () => {
          const ready = (await (await fetch(`${api.url}/ready`)).json()) as {
            queues?: Record<string, { pollers: number }>;
          };
          return (ready.queues?.['observe-worker-stop-fetch']?.pollers ?? 0) > 0;
        },
        60_000,
      );
      const hits = slowHits;
      const answer = fetch(`${api.url}/v1/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
        body: json({ url: fixtures.url('/slow'), nocache: true }),
        signal: AbortSignal.timeout(30_000),
      });
      await eventually(() => slowHits > hits, { what: 'the slow page to be asked for', timeoutMs: 10_000 });
      const stopping = Date.now();
      fetcher.process.kill('SIGTERM');
      const res = await answer;
      expect(res.status).toBe(200);
      expect(((await res.json()) as { content: string }).content).toContain('every step the logs');
      expect(await fetcher.exited).toBe(0);
      // It waited for the page (SLOW_PAGE_MS from the fetch's start), not a retry's timeout.
      expect(Date.now() - stopping).toBeLessThan(SLOW_PAGE_MS + 5000);
    } finally {
      await Promise.all([workflows.stop(), fetcher.stop()]);
      await api.close();
    }
  }, 120_000);
});
