import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';

/**
 * What an operator sees of the stack: its log lines, each naming the organization and run it
 * belongs to, in the log files of the shared stack's processes.
 */

const LOGS = path.resolve(__dirname, '..', '..', 'data', 'test-logs');

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
