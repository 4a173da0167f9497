import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Router from '@koa/router';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker } from '@temporalio/worker';
import { ulid } from 'ulid';
import { createApp } from '../../src/api/app';
import { closeApiDeps, createApiDeps, type ApiDeps } from '../../src/api/deps';
import { INVALID_LAST_EVENT_ID } from '../../src/events/sse';
import type { ApiState } from '../../src/api/state';
import { loadConfig } from '../../src/config';
import type { StreamedOperationName } from '../../src/events/streams';
import { createLogger } from '../../src/telemetry/logger';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { apiKey, apiUrl } from '../support/api';
import { sdkEventChecker } from '../support/sdkEventSchemas';
import { SseStream } from '../support/sseClient';
import type { ScriptedEventsInput, ScriptStep } from '../support/workflows/scriptedEvents';
import { eventually } from '../support/eventually';
import { listEventsQuery } from '../../src/events/messages';

/**
 * The event stream end to end: a test-only workflow records scripted events through EventLog
 * (run by a worker this file starts on its own task queue), and the real relay streams them.
 * API "A" runs in this process with short heartbeat and grace settings and one extra route
 * that starts the scripted workflow through `streamWorkflow`, the path Research and Automate
 * use; the stack's own API process ("B") serves resumes, so a stream can move between processes.
 */

const QUEUE_PREFIX = 'events-test';
const HEARTBEAT_MS = 300;
/** Long enough that a client away for a quarter of it is back in time on a busy machine (2 s was not, once). */
const GRACE_MS = 4000;
// Temporal's timers fire on whole seconds here, so a scripted step with a delay takes about a second.

let client: Client;
let connection: Connection;
let worker: Worker;
let workerRun: Promise<void>;
let server: Server;
let baseA: string;
let deps: ApiDeps | undefined;
const check = sdkEventChecker();

const otherKey = (): string => process.env.TEST_OTHER_ORG_KEY ?? '';

function researchScript(count: number, delayMs = 30): ScriptStep[] {
  const steps: ScriptStep[] = [{ event: 'start', data: { message: 'Research started', timestamp: 0 } }];
  for (let i = 1; i <= count; i++) {
    steps.push({
      event: 'iteration:start',
      data: { message: `iteration ${i}`, timestamp: 0, iteration: i, maxIterations: count, queries: [`q${i}`] },
      delayMs,
    });
  }
  steps.push({
    event: 'complete',
    data: {
      message: 'done',
      timestamp: 0,
      report: '# Report',
      metadata: {
        prompt: 'q',
        mode: 'fast',
        queryComplexity: 'simple',
        researchObjective: 'o',
        researchPlan: 'p',
        researchQuestions: ['q?'],
        executedQueries: [['q1']],
        totalPagesAnalyzed: 0,
      },
    },
    delayMs,
  });
  return steps;
}

function automateScript(): ScriptStep[] {
  return [
    { event: 'start', data: { task: 'find the price', url: 'https://example.com', message: 'Starting the task' } },
    {
      event: 'agent:step',
      data: { iterationId: 'i1', timestamp: 0, currentIteration: 1, message: 'Step 1' },
      delayMs: 20,
    },
    {
      event: 'browser:navigated',
      data: {
        iterationId: 'i1',
        timestamp: 0,
        title: 'Example',
        url: 'https://example.com',
        message: 'On example.com',
      },
      delayMs: 20,
    },
  ];
}

/** Starts a scripted run through API A's start-and-stream path. */
function startStream(input: ScriptedEventsInput): Promise<SseStream> {
  return SseStream.open(`${baseA}/v1/test/stream`, { key: apiKey(), method: 'POST', body: input });
}

function resume(base: string, runId: string, lastEventId?: number | string, key = apiKey()): Promise<SseStream> {
  return SseStream.open(`${base}/runs/${runId}/events`, { key, lastEventId });
}

function expectValidEvents(operation: StreamedOperationName, stream: SseStream): void {
  for (const message of stream.events) {
    expect({
      event: message.event,
      problems: check(operation, { event: message.event!, data: JSON.parse(message.data!) }),
    }).toEqual({
      event: message.event,
      problems: [],
    });
  }
}

function workflowIdOf(runId: string): string {
  const [, operation, id] = /^(\w+)-(\w+)$/.exec(runId)!;
  return `test-org/${operation}/${id}`;
}

async function statusOf(runId: string): Promise<string> {
  return (await client.workflow.getHandle(workflowIdOf(runId)).describe()).status.name;
}

beforeAll(async () => {
  const env = {
    ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv),
    TASK_QUEUE_PREFIX: QUEUE_PREFIX,
    STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS),
    STREAM_DISCONNECT_GRACE_MS: String(GRACE_MS),
  };
  const config = loadConfig(env);
  connection = await Connection.connect({ address: config.temporal.address });
  client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  Runtime.install({ logger: new DefaultLogger('WARN') });
  worker = await Worker.create({
    connection: await NativeConnection.connect({ address: config.temporal.address }),
    namespace: config.temporal.namespace,
    taskQueue: config.taskQueues.workflows,
    workflowsPath: require.resolve('../support/workflows/scriptedEvents'),
    dataConverter,
  });
  workerRun = worker.run();
  const logger = createLogger('warn', 'api-a');
  deps = createApiDeps(config, client, logger);
  const app = createApp(deps, logger);
  const testRoutes = new Router<ApiState>({ prefix: '/v1' });
  testRoutes.post('/test/stream', async (ctx) => {
    const input = ctx.state.body as unknown as ScriptedEventsInput;
    await deps!.streamWorkflow(ctx, input.operation, 'scriptedEvents', { args: [input], timeout: '5m' });
  });
  app.use(testRoutes.routes());
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  baseA = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  server?.closeAllConnections();
  server?.close();
  worker?.shutdown();
  await workerRun;
  if (deps) await closeApiDeps(deps);
  await connection?.close();
});

describe('event streams', () => {
  it('streams a run as spec §4.3 writes it: ids in order, each event fitting the client types, then the end', async () => {
    const started = Date.now();
    const stream = await startStream({ operation: 'research', steps: researchScript(3) });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('cache-control')).toBe('no-cache, no-transform');
    const runId = stream.response.headers.get('x-run-id')!;
    expect(runId).toMatch(/^research-[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(stream.response.headers.get('x-workflow-id')).toBe(workflowIdOf(runId));
    await stream.finished;
    expect(stream.messages[0]).toMatchObject({ comment: 'connected' });
    expect(stream.messages[0]!.at - started).toBeLessThan(2000);
    expect(stream.events.map((event) => event.event)).toEqual([
      'start',
      'iteration:start',
      'iteration:start',
      'iteration:start',
      'complete',
    ]);
    expect(stream.events.map((event) => event.id)).toEqual(['1', '2', '3', '4', '5']);
    // The wire format, to the byte: id, event and data lines, then a blank line.
    // Comment lines stand alone: a blank line ends an event and nothing else.
    const blocks = stream.raw.replace(/^:.*\n/gm, '').split('\n\n');
    expect(blocks.pop()).toBe('');
    for (const block of blocks) expect(block).toMatch(/^id: \d+\nevent: [a-z:_]+\ndata: \{.*\}$/);
    expectValidEvents('research', stream);
    const first = JSON.parse(stream.events[1]!.data!) as { iteration: number; timestamp: number };
    expect(first.iteration).toBe(1);
    expect(first.timestamp).toBeGreaterThanOrEqual(started - 1000);
    expect(await statusOf(runId)).toBe('COMPLETED');
  });

  it('sends keep-alive comments while the run is quiet', async () => {
    const stream = await startStream({
      operation: 'research',
      steps: [
        { event: 'start', data: { message: 'go', timestamp: 0 } },
        {
          event: 'iteration:start',
          data: { message: 'later', timestamp: 0, iteration: 1, maxIterations: 1, queries: [] },
          delayMs: 1600,
        },
        {
          event: 'iteration:end',
          data: { message: 'end', timestamp: 0, iteration: 1, isLast: true, stopReason: 'max_iterations' },
        },
      ],
    });
    await stream.finished;
    const start = stream.messages.findIndex((message) => message.event === 'start');
    const later = stream.messages.findIndex((message) => message.event === 'iteration:start');
    const beats = stream.messages.slice(start + 1, later);
    expect(beats.length).toBeGreaterThanOrEqual(3);
    for (const beat of beats) expect(beat.comment).toBe('keep-alive');
    expect(stream.raw).toMatch(/\n\n: keep-alive\n: keep-alive\n(: keep-alive\n)*id: 2\n/);
  });

  it('resumes after a dropped connection from Last-Event-ID, on another API process, then live, each event once', async () => {
    const first = await startStream({ operation: 'research', steps: researchScript(6, 150) });
    const runId = first.response.headers.get('x-run-id')!;
    await first.until((stream) => stream.events.length >= 3);
    first.abort();
    const lastId = Number(first.events.at(-1)!.id);
    // Resumed once the run has gone on without a reader, so the new stream replays before it goes live.
    const handle = client.workflow.getHandle(workflowIdOf(runId));
    await eventually(async () => (await handle.query(listEventsQuery, { after: lastId })).events.length > 0, {
      what: 'the run to record an event its dropped reader missed',
      timeoutMs: 10_000,
    });
    const second = await resume(apiUrl(), runId, lastId);
    expect(second.response.status).toBe(200);
    expect(second.response.headers.get('x-run-id')).toBe(runId);
    await second.finished;
    const ids = second.events.map((event) => Number(event.id));
    expect(ids).toEqual(Array.from({ length: 8 - lastId }, (_, i) => lastId + 1 + i));
    expect(second.events.at(-1)!.event).toBe('complete');
    expectValidEvents('research', second);

    // After the run has closed, the whole stream is still there to read.
    const again = await resume(apiUrl(), runId);
    await again.finished;
    expect(again.events.map((event) => Number(event.id))).toEqual(Array.from({ length: 8 }, (_, i) => i + 1));
    expect(again.events.map((event) => event.data)).toEqual(
      [...first.events.slice(0, lastId), ...second.events].map((event) => event.data),
    );
  });

  it('answers 404 for a run of another organization or an unknown run, and 400 for a bad Last-Event-ID', async () => {
    const stream = await startStream({ operation: 'research', steps: researchScript(1) });
    const runId = stream.response.headers.get('x-run-id')!;
    await stream.finished;
    for (const [id, key] of [
      [runId, otherKey()],
      [`research-${ulid()}`, apiKey()],
      [runId.replace('research-', 'automate-'), apiKey()],
      [runId.replace('research-', 'extract-markdown-'), apiKey()],
      ['not-a-run', apiKey()],
    ] as const) {
      const response = await fetch(`${apiUrl()}/runs/${id}/events`, { headers: { authorization: `Bearer ${key}` } });
      expect({ id, status: response.status, body: await response.json() }).toEqual({
        id,
        status: 404,
        body: { error: 'not found' },
      });
    }
    const bad = await fetch(`${apiUrl()}/runs/${runId}/events`, {
      headers: { authorization: `Bearer ${apiKey()}`, 'last-event-id': 'abc' },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toMatch(/Last-Event-ID/);
    expect((await fetch(`${apiUrl()}/runs/${runId}/events`)).status).toBe(401);
  });

  it("refuses a Last-Event-ID past the run's last event, and its other readers stay live", async () => {
    const first = await startStream({ operation: 'research', steps: researchScript(8, 400) });
    const runId = first.response.headers.get('x-run-id')!;
    await first.until((stream) => stream.events.length >= 2);
    first.abort();
    // API A now has no reader for the run: the next request there starts it.
    const beyond = await resume(`${baseA}/v1`, runId, 1000);
    await beyond.finished;
    expect({ status: beyond.response.status, raw: beyond.raw }).toEqual({
      status: 400,
      raw: JSON.stringify({ error: INVALID_LAST_EVENT_ID }),
    });
    const lastId = Number(first.events.at(-1)!.id);
    const reader = await resume(`${baseA}/v1`, runId, lastId);
    const resumed = Date.now();
    await reader.until((stream) => stream.events.length >= 2, 7000);
    expect(Date.now() - resumed).toBeLessThan(6000);
    await reader.finished;
    expect(reader.events.at(-1)!.event).toBe('complete');
  });

  it('cancels a run that no client reads for the grace period', async () => {
    const stream = await startStream({ operation: 'research', steps: researchScript(40, 250) });
    const runId = stream.response.headers.get('x-run-id')!;
    await stream.until((s) => s.events.length >= 2);
    stream.abort();
    const status = await eventually(
      async () => {
        const now = await statusOf(runId);
        return now !== 'RUNNING' && now;
      },
      { what: 'the unread run to stop running', timeoutMs: GRACE_MS + 8000, intervalMs: 200 },
    );
    expect(status).toBe('FAILED');
    const history = await resume(apiUrl(), runId);
    await history.finished;
    const last = history.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data!)).toMatchObject({
      error: { name: 'abandoned' },
      message: expect.stringMatching(/no client read its events/),
    });
    // It stopped spending: far fewer than the 42 scripted events were recorded.
    expect(history.events.length).toBeLessThan(30);
    expectValidEvents('research', history);
  });

  it('keeps a run going when its client comes back within the grace period', async () => {
    const first = await startStream({ operation: 'research', steps: researchScript(5, 200) });
    const runId = first.response.headers.get('x-run-id')!;
    await first.until((s) => s.events.length >= 2);
    first.abort();
    // Away for part of the grace period is the point: the run must still be there when the client is back.
    await new Promise((resolve) => setTimeout(resolve, GRACE_MS / 4));
    const second = await resume(`${baseA}/v1`, runId, first.events.at(-1)!.id);
    await second.finished;
    expect(second.events.at(-1)!.event).toBe('complete');
    expect(await statusOf(runId)).toBe('COMPLETED');
  });

  it('ends the stream with the operation error event when the run fails', async () => {
    const research = await startStream({ operation: 'research', steps: researchScript(1), failWith: 'fetch_failed' });
    await research.finished;
    const researchError = research.events.at(-1)!;
    expect(researchError.event).toBe('error');
    expect(JSON.parse(researchError.data!)).toMatchObject({
      message: 'failed to fetch URL',
      error: { name: 'fetch_failed', message: 'failed to fetch URL' },
    });
    expectValidEvents('research', research);

    const automate = await startStream({ operation: 'automate', steps: automateScript(), failWith: 'internal' });
    await automate.finished;
    expect(automate.events.map((event) => event.event)).toEqual(['start', 'agent:step', 'browser:navigated', 'error']);
    expect(JSON.parse(automate.events[3]!.data!)).toMatchObject({
      success: false,
      error: { code: 'INTERNAL', message: 'internal server error' },
    });
    expectValidEvents('automate', automate);
  });

  it('ends the stream with an error event when the run is terminated', async () => {
    const stream = await startStream({ operation: 'research', steps: researchScript(30, 300) });
    const runId = stream.response.headers.get('x-run-id')!;
    await stream.until((s) => s.events.length >= 2);
    await client.workflow.getHandle(workflowIdOf(runId)).terminate('test');
    await stream.finished;
    const last = stream.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data!)).toMatchObject({ message: 'the run was terminated', error: { name: 'terminated' } });
    expect(Number(last.id)).toBe(Number(stream.events.at(-2)!.id) + 1);
    expectValidEvents('research', stream);
  });

  it('reads a run once per API process, however many clients follow it there', async () => {
    const first = await startStream({ operation: 'research', steps: researchScript(5, 100) });
    const runId = first.response.headers.get('x-run-id')!;
    await first.until((s) => s.events.length >= 1);
    const others = await Promise.all([resume(`${baseA}/v1`, runId), resume(`${baseA}/v1`, runId)]);
    await Promise.all([first.finished, ...others.map((other) => other.finished)]);
    for (const other of others)
      expect(other.events.map((event) => event.data)).toEqual(first.events.map((event) => event.data));
    const history = await client.workflow.getHandle(workflowIdOf(runId)).fetchHistory();
    const reads = (history.events ?? []).filter((event) => event.workflowExecutionUpdateAcceptedEventAttributes).length;
    // One reader: about one read per event; three readers would make about three.
    expect(reads).toBeLessThanOrEqual(first.events.length + 2);
  });
});
