import { execFile } from 'node:child_process';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { Client, Connection, type WorkflowExecutionDescription } from '@temporalio/client';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers';
import { ulid } from 'ulid';
import { parseWorkflowId, workflowIdOf } from '../../src/events/streams';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { runLabels } from '../../src/temporal/runLabels';
import { ERROR_CODE, OPERATION, ORGANIZATION, OUTCOME, URL_HOST } from '../../src/temporal/searchAttributes';
import type { ResearchInput } from '../../src/workflows';
import { call, post, stackSetting } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { FIXTURE_HOST } from '../support/localStack';
import { eventually } from '../support/eventually';

/**
 * Finding, replaying and retrying runs on the real stack: the search attributes a run gets from
 * the API and its workflow, and the run tools (`npm run replay`, `npm run retry`, as built in
 * dist/) against real failed, completed and terminated runs.
 */

const TOOLS = path.resolve(__dirname, '..', '..', 'dist', 'src', 'tools');
const ARTICLE = `<html><head><title>Harbour</title></head><body><article><h1>Harbour</h1>
<p>${'The nets are mended by hand on the long stone quay every morning. '.repeat(8)}</p></article></body></html>`;

let fixtures: FixtureServer;
let connection: Connection;
let client: Client;
/** Requests to /hold, which never get an answer: runs stay running until terminated. */
const held: ServerResponse[] = [];

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/article': html(ARTICLE),
    '/hold': (_req, res) => held.push(res),
  });
  connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
  client = new Client({ connection, namespace: process.env.TEST_TEMPORAL_NAMESPACE, dataConverter });
});

afterAll(async () => {
  await connection?.close();
  await fixtures?.close();
});

interface ToolRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs one of the run tools as `npm run <tool>` does, with the stack's settings. */
function tool(name: 'replayRun' | 'retryRun', ...args: string[]): Promise<ToolRun> {
  const env = JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(TOOLS, `${name}.js`), ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Workflow ids a visibility query finds, once it finds at least one (visibility lags a little). */
async function listed(query: string): Promise<string[]> {
  return eventually(
    async () => {
      const ids: string[] = [];
      for await (const run of client.workflow.list({ query })) ids.push(run.workflowId);
      return ids.length > 0 && ids;
    },
    { what: `a run that ${query}`, timeoutMs: 15_000, intervalMs: 200 },
  );
}

/** The arguments a run was started with, decoded as a worker decodes them. */
async function startInput(workflowId: string): Promise<unknown[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  const payloads = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads;
  return decodeArrayFromPayloads(loadDataConverter(dataConverter), payloads);
}

function attributes(run: WorkflowExecutionDescription) {
  const get = run.typedSearchAttributes.get.bind(run.typedSearchAttributes);
  return {
    organization: get(ORGANIZATION),
    operation: get(OPERATION),
    urlHost: get(URL_HOST),
    outcome: get(OUTCOME),
    errorCode: get(ERROR_CODE),
  };
}

/** A run of Extract Markdown that fails for real: the page is not there (404). */
async function failedRun(): Promise<string> {
  const res = await post('/extract/markdown', { url: fixtures.url('/missing'), effort: 'min', nocache: true });
  expect(res.status).toBe(500);
  return res.headers.get('x-workflow-id')!;
}

describe('search attributes', () => {
  it('finds a failed run in the Web UI by organization, outcome and error code', async () => {
    const workflowId = await failedRun();
    const run = await client.workflow.getHandle(workflowId).describe();
    expect(run.status.name).toBe('FAILED');
    expect(attributes(run)).toEqual({
      organization: 'test-org',
      operation: 'extract-markdown',
      urlHost: FIXTURE_HOST,
      outcome: 'failed',
      errorCode: 'fetch_failed',
    });
    expect(await listed(`organization = "test-org" AND outcome = "failed" AND WorkflowId = "${workflowId}"`)).toEqual([
      workflowId,
    ]);
    expect(await listed(`errorCode = "fetch_failed" AND urlHost = "${FIXTURE_HOST}"`)).toContain(workflowId);
  });

  it('marks a run that answered as completed, with no error code', async () => {
    const res = await post('/extract/markdown', { url: fixtures.url('/article'), effort: 'min', nocache: true });
    expect(res.status).toBe(200);
    const run = await client.workflow.getHandle(res.headers.get('x-workflow-id')!).describe();
    expect(attributes(run)).toMatchObject({ organization: 'test-org', outcome: 'completed', errorCode: undefined });
  });
});

describe('npm run replay', () => {
  it('replays a failed run against the current workflow code and finds no divergence', async () => {
    const workflowId = await failedRun();
    const replay = await tool('replayRun', workflowId);
    expect(replay.stderr).toBe('');
    expect(replay.stdout).toMatch(/\(extractMarkdown, failed\)\nreplayed \d+ events: no divergence\n$/);
    expect(replay.code).toBe(0);
  });

  it('says so when there is no such run', async () => {
    const replay = await tool('replayRun', workflowIdOf('test-org', 'extract-markdown', ulid()));
    expect(replay.stderr).toMatch(/^no such run: /);
    expect(replay.code).toBe(1);
  });
});

describe('npm run retry', () => {
  /** Retries the run and checks the new one: same type, queue, input and labels, a new id of the same form. */
  async function retried(workflowId: string, ...flags: string[]): Promise<{ retryId: string; stdout: string }> {
    const retry = await tool('retryRun', workflowId, ...flags);
    expect(retry.stderr).toBe('');
    expect(retry.code).toBe(0);
    const retryId = /^new workflow id: (.+)$/m.exec(retry.stdout)?.[1];
    const original = parseWorkflowId(workflowId)!;
    expect(parseWorkflowId(retryId ?? '')).toMatchObject({
      organization: original.organization,
      operation: original.operation,
    });
    expect(retryId).not.toBe(workflowId);
    const [before, after] = await Promise.all([
      client.workflow.getHandle(workflowId).describe(),
      client.workflow.getHandle(retryId!).describe(),
    ]);
    expect(after.type).toBe(before.type);
    expect(after.taskQueue).toBe(before.taskQueue);
    // The memo's usage is what each run spent, not a label.
    const { organization, operation, url } = before.memo ?? {};
    expect(after.memo).toMatchObject({ organization, operation, ...(url ? { url } : {}), retryOf: workflowId });
    expect(attributes(after)).toMatchObject({
      organization: attributes(before).organization,
      operation: attributes(before).operation,
      urlHost: attributes(before).urlHost,
    });
    expect(await startInput(retryId!)).toEqual(await startInput(workflowId));
    return { retryId: retryId!, stdout: retry.stdout };
  }

  it('starts a failed run again with its original input under a new id', async () => {
    const { retryId } = await retried(await failedRun());
    // The page is still missing: the new run fails the same way.
    await expect(client.workflow.getHandle(retryId).result()).rejects.toThrow();
    expect(attributes(await client.workflow.getHandle(retryId).describe())).toMatchObject({
      outcome: 'failed',
      errorCode: 'fetch_failed',
    });
  });

  it('starts a terminated run again', async () => {
    const startedAfter = new Date(Date.now() - 1000).toISOString();
    // Its own URL picks it out: another run of the organization (a retry of the test before) may
    // still be running, and be over by the time it would be terminated.
    const url = fixtures.url(`/hold?run=${ulid()}`);
    const answer = post('/extract/markdown', { url, effort: 'standard', nocache: true });
    const workflowId = await eventually(
      async () => {
        const running = await listed(
          `organization = "test-org" AND ExecutionStatus = "Running" AND StartTime > "${startedAfter}"`,
        );
        for (const id of running) if ((await client.workflow.getHandle(id).describe()).memo?.url === url) return id;
        return false;
      },
      { what: `the run of ${url}`, timeoutMs: 15_000, intervalMs: 200 },
    );
    await client.workflow.getHandle(workflowId!).terminate('test: terminated to be retried');
    expect((await answer).status).toBe(500);
    const { retryId } = await retried(workflowId!);
    await client.workflow.getHandle(retryId).terminate('test: done');
    for (const res of held.splice(0)) res.destroy();
  });

  it('refuses a completed run unless forced', async () => {
    const res = await post('/extract/markdown', { url: fixtures.url('/article'), effort: 'min', nocache: true });
    const workflowId = res.headers.get('x-workflow-id')!;
    const refused = await tool('retryRun', workflowId);
    expect(refused.stderr).toMatch(/ended as completed: retrying it would run it twice\. Pass --force/);
    expect(refused.code).toBe(1);
    const { retryId } = await retried(workflowId, '--force');
    expect(await client.workflow.getHandle(retryId).result()).toMatchObject({ url: fixtures.url('/article') });
  });

  it('prints the run id a streamed run is read by, and the API reads the new run by it', async () => {
    // The shared stack's API has no search engine, so the run is started here as the API would;
    // the model refuses the plan, so it fails at its first step.
    await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, {
      method: 'POST',
      body: JSON.stringify({ replies: [], byFormat: { research_plan: [{ status: 400, message: 'no', keep: true }] } }),
    });
    const prefix = stackSetting('TASK_QUEUE_PREFIX') ?? 'webloom';
    const input: ResearchInput = {
      request: { query: 'How do harbours work?', mode: 'fast', nocache: true },
      queues: {
        fetch: `${prefix}-fetch`,
        browser: `${prefix}-browser`,
        model: `${prefix}-model`,
        search: `${prefix}-search`,
      },
      cachePartition: 'test-org',
      pageConcurrency: 2,
      pageTokens: 1000,
    };
    const workflowId = workflowIdOf('test-org', 'research', ulid());
    await client.workflow.start('research', {
      workflowId,
      taskQueue: `${prefix}-workflows`,
      args: [input],
      workflowExecutionTimeout: '60s',
      ...runLabels('test-org', 'research'),
    });
    await expect(client.workflow.getHandle(workflowId).result()).rejects.toThrow();
    const { retryId, stdout } = await retried(workflowId);
    const runId = `research-${parseWorkflowId(retryId)!.ulid}`;
    expect(stdout).toContain(`run id: ${runId} (GET /v1/runs/${runId}/events)`);
    const events = await call('GET', `/runs/${runId}/events`);
    expect(events.status).toBe(200);
    expect(events.text).toContain('event: start');
    expect(events.text).toContain('event: error');
  });
});
