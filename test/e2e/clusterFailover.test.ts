import { Client, Connection } from '@temporalio/client';
import type { ResearchEvents } from '../../src/events/research';
import { CLUSTER_WORKER_ROLES } from '../../src/stack/clusterTopology';
import { apiKey, apiUrls, post } from '../support/api';
import { startFixtureServer, type FixtureServer, type Handler } from '../support/fixtureServer';
import { testTopology } from '../support/localStack';
import { testDataConverter } from '../support/payloadKeys';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { startResearchCorpus } from '../support/researchCorpus';
import { startSearchStandIn, type SearchStandIn } from '../support/searchStandIn';
import { SseStream } from '../support/sseClient';
import { slowModelScript } from '../support/chaos';
import { eventually } from '../support/eventually';

/**
 * The production topology (npm run test:cluster) keeps its promises when processes fail: every
 * run in flight finishes when one worker process of each role is killed, and either API replica
 * serves the runs the other started. Skipped on the dev stack, which has one of each.
 */

const onCluster = testTopology() === 'cluster';

let connection: Connection;
let client: Client;

/** Long enough for every run to be mid-way when the workers die. */
const PAGE_DELAY_MS = 4_000;
const MODEL_DELAY_MS = 4_000;
/**
 * A lost attempt is retried once the server notices: a fetch, render or model call after its
 * heartbeat timeout (10 s), a workflow task after its sticky queue's timeout; then the work
 * itself, twice over for the research runs' several steps, on a loaded two-core machine.
 */
const FINISHED_WITHIN_MS = 90_000;

const article = (title: string): Handler => {
  const body = `<!doctype html><html><head><title>${title}</title></head><body><article><h1>${title}</h1>
<p>${`${title} is a page that arrives slowly, so its run is under way when the workers die. `.repeat(5)}</p>
</article></body></html>`;
  return (_req, res) =>
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(body), PAGE_DELAY_MS);
};

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' } },
  required: ['title'],
};

async function script(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = { replies: [], byFormat };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, {
    method: 'POST',
    body: JSON.stringify(body),
  });
}

/** The cluster's service names by process id, as started (test/support/e2eSetup.ts). */
const startedPids = () => JSON.parse(process.env.TEST_PIDS ?? '{}') as Record<string, number | undefined>;

function pidOf(service: string): number {
  const pid = startedPids()[service];
  if (!pid) throw new Error(`no ${service} among ${JSON.stringify(startedPids())}`);
  return pid;
}

/** PendingActivityState.PENDING_ACTIVITY_STATE_STARTED of Temporal's API. */
const STARTED = 2;

const ACTIVITY_ROLES = CLUSTER_WORKER_ROLES.filter((role) => role !== 'workflow');

/**
 * Per role, a worker process running an activity now: the server records each started
 * activity's worker identity (pid@host).
 */
async function workersHoldingActivities(): Promise<Map<string, number>> {
  const roleOf = new Map(
    Object.entries(startedPids()).flatMap(([name, pid]) => {
      const role = /^worker-(\w+)-\d+$/.exec(name)?.[1];
      return role && pid ? [[pid, role] as const] : [];
    }),
  );
  const holders = new Map<string, number>();
  for await (const run of client.workflow.list({
    query: 'ExecutionStatus = "Running"',
  })) {
    const { raw } = await client.workflow.getHandle(run.workflowId, run.runId).describe();
    for (const activity of raw.pendingActivities ?? []) {
      const pid = Number(activity.lastWorkerIdentity?.split('@')[0]);
      const role = roleOf.get(pid);
      if (role && activity.state === STARTED) holders.set(role, pid);
    }
  }
  return holders;
}

const eventNames = (stream: SseStream) => stream.events.map((message) => message.event);
const research = (at: string, query: string) =>
  SseStream.open(`${at}/research`, {
    key: apiKey(),
    method: 'POST',
    body: { query, nocache: true },
  });

(onCluster ? describe : describe.skip)('the cluster topology', () => {
  let fixtures: FixtureServer;
  let corpus: FixtureServer;
  let search: SearchStandIn;

  beforeAll(async () => {
    connection = await Connection.connect({
      address: process.env.TEST_TEMPORAL_ADDRESS,
    });
    client = new Client({
      connection,
      namespace: process.env.TEST_TEMPORAL_NAMESPACE,
      dataConverter: testDataConverter,
    });
    fixtures = await startFixtureServer({
      '/markdown-1': article('Markdown one'),
      '/markdown-2': article('Markdown two'),
      '/markdown-3': article('Markdown three'),
      '/rendered-1': article('Rendered one'),
      '/rendered-2': article('Rendered two'),
      '/json-1': article('Json one'),
      '/json-2': article('Json two'),
    });
    corpus = await startResearchCorpus();
    // The cluster's workers were started with SEARXNG_URL pointing here (test/support/e2eSetup.ts).
    search = await startSearchStandIn(corpus, '127.0.0.1', Number(process.env.TEST_SEARCH_PORT));
  });
  afterAll(async () => {
    await search?.close();
    await corpus?.close();
    await fixtures?.close();
    await connection?.close();
  });

  it('finishes every run in flight when one worker process of each role is killed', async () => {
    await script(slowModelScript(MODEL_DELAY_MS));
    const markdown = ['/markdown-1', '/markdown-2', '/markdown-3'].map((path) =>
      post('/extract/markdown', {
        url: fixtures.url(path),
        effort: 'standard',
        nocache: true,
      }),
    );
    const rendered = ['/rendered-1', '/rendered-2'].map((path) =>
      post('/extract/markdown', {
        url: fixtures.url(path),
        effort: 'max',
        nocache: true,
      }),
    );
    const extracted = ['/json-1', '/json-2'].map((path) =>
      post('/extract/json', {
        url: fixtures.url(path),
        json_schema: SCHEMA,
        nocache: true,
      }),
    );
    const [urlA, urlB] = apiUrls();
    const streams = await Promise.all([
      research(urlA!, 'How do the volcanoes of Iceland erupt?'),
      research(urlB!, 'Which eruptions of Iceland volcanoes mattered?'),
    ]);
    // For each activity role, a worker process the server records as running an activity of a
    // run in flight: killing it loses that attempt, which must then be noticed and retried.
    const busy = await eventually(
      async () => {
        const holders = await workersHoldingActivities();
        return ACTIVITY_ROLES.every((role) => holders.has(role)) && holders;
      },
      { what: 'a started activity on a worker of each role', timeoutMs: 30_000, intervalMs: 50 },
    );
    const victims = [...ACTIVITY_ROLES.map((role) => busy.get(role)!), pidOf('worker-workflow-1')];
    const killedAt = Date.now();
    for (const pid of victims) process.kill(pid, 'SIGKILL');

    const finishedAt: Record<string, number> = {};
    const timed = <T>(name: string, work: Promise<T>) =>
      work.then((result) => ((finishedAt[name] = Date.now() - killedAt), result));
    const [markdownAnswers, renderedAnswers, jsonAnswers] = await Promise.all([
      timed('markdown', Promise.all(markdown)),
      timed('rendered', Promise.all(rendered)),
      timed('json', Promise.all(extracted)),
      timed('research', Promise.all(streams.map((stream) => stream.finished))),
    ]);
    console.log(`finished after the kill (ms): ${JSON.stringify(finishedAt)}`);
    const finishedAfterMs = Date.now() - killedAt;
    expect([...markdownAnswers, ...renderedAnswers].map((res) => [res.status, res.body.error])).toEqual(
      Array.from({ length: 5 }, () => [200, undefined]),
    );
    for (const [i, res] of markdownAnswers.entries())
      expect(res.body.content).toContain(['Markdown one', 'Markdown two', 'Markdown three'][i]);
    for (const [i, res] of renderedAnswers.entries())
      expect(res.body.content).toContain(['Rendered one', 'Rendered two'][i]);
    expect(jsonAnswers.map((res) => [res.status, res.body])).toEqual([
      [200, { title: 'Slow lamp' }],
      [200, { title: 'Slow lamp' }],
    ]);
    for (const stream of streams) expect(eventNames(stream).at(-1)).toBe('complete');
    expect(finishedAfterMs).toBeLessThan(FINISHED_WITHIN_MS);
  }, 180_000);

  it('serves a run started on one API replica from the other, live and after it ended', async () => {
    await script(slowModelScript(MODEL_DELAY_MS));
    const [urlA, urlB] = apiUrls();
    const started = await research(urlA!, 'How do the volcanoes of Iceland erupt?');
    const runId = started.response.headers.get('x-run-id');
    expect(runId).toMatch(/^research-/);
    await started.until((stream) => stream.events.length >= 2);
    const live = await SseStream.open(`${urlB}/runs/${runId}/events`, {
      key: apiKey(),
    });
    expect(live.response.status).toBe(200);
    await Promise.all([started.finished, live.finished]);
    const after = await SseStream.open(`${urlB}/runs/${runId}/events`, {
      key: apiKey(),
      lastEventId: 1,
    });
    await after.finished;

    const complete = (stream: SseStream) =>
      JSON.parse(stream.events.at(-1)?.data ?? '{}') as Partial<ResearchEvents['complete']>;
    const ids = (stream: SseStream) => stream.events.map((message) => [message.id, message.event]);
    expect(eventNames(started).at(-1)).toBe('complete');
    expect(ids(live)).toEqual(ids(started));
    expect(ids(after)).toEqual(ids(started).slice(1));
    expect(complete(live).report).toBe(complete(started).report);
  }, 120_000);
});
