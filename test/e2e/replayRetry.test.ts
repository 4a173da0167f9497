import { execFile } from 'node:child_process';
import path from 'node:path';
import { Client, Connection, type WorkflowExecutionDescription } from '@temporalio/client';
import { ulid } from 'ulid';
import { workflowIdOf } from '../../src/events/streams';
import { dataConverter } from '../../src/payloadCodec';
import { ERROR_CODE, OPERATION, ORGANIZATION, OUTCOME, URL_HOST } from '../../src/searchAttributes';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { FIXTURE_HOST } from '../support/localStack';

/**
 * Finding and replaying runs on the real stack: the search attributes a run gets from the API
 * and its workflow, and `npm run replay` (as built in dist/) against a real failed run.
 */

const TOOLS = path.resolve(__dirname, '..', '..', 'dist', 'src', 'tools');
const ARTICLE = `<html><head><title>Harbour</title></head><body><article><h1>Harbour</h1>
<p>${'The nets are mended by hand on the long stone quay every morning. '.repeat(8)}</p></article></body></html>`;

let fixtures: FixtureServer;
let connection: Connection;
let client: Client;

beforeAll(async () => {
  fixtures = await startFixtureServer({ '/article': html(ARTICLE) });
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
function tool(name: 'replayRun', ...args: string[]): Promise<ToolRun> {
  const env = JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv;
  return new Promise((resolve) => {
    execFile(process.execPath, [path.join(TOOLS, `${name}.js`), ...args], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** Workflow ids a visibility query finds, once it finds at least one (visibility lags a little). */
async function listed(query: string): Promise<string[]> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const ids: string[] = [];
    for await (const run of client.workflow.list({ query })) ids.push(run.workflowId);
    if (ids.length > 0 || Date.now() > deadline) return ids;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
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
