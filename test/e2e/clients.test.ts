import { apiKey, call, post } from '../support/api';
import { SHOP_USER, startAutomateSite, type AutomateSite } from '../support/automateSite';
import { decide } from '../support/agentScript';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply } from '../support/modelStandIn';
import { FAST_EVENTS, scriptModel, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { sdkEventChecker } from '../support/sdkEventSchemas';
import { SseStream } from '../support/sseClient';
import { withStackClient } from '../support/stackClient';

/**
 * What a client shows a person, read over HTTP from the real stack as the official clients read
 * it: the support id (`x-trace-id`, the Go CLI's `--debug`), each event's line in a timeline
 * (the CLI prints an event's `operation`, else `message`, else title and URL, after its name),
 * the reason of a failed task where the result is printed, and a page's content with or without
 * `metadata`. Research and Automate run on a stack with a search engine and a browser worker
 * (test/support/researchStack.ts), the agent played by the model stand-in on the shop fixture site.
 */

const TITLE = 'Lighthouse keepers of the north coast';
const PAGE = `<!doctype html><html><head><title>${TITLE}</title></head><body>
<main><article><h1>${TITLE}</h1>
<p>${'The keepers lit the lamp at dusk and trimmed its wick through the night, logging each ship they saw. '.repeat(4)}</p>
<p>${'Supplies came by boat once a month, weather allowing, with oil, letters and the news from the town. '.repeat(4)}</p>
</article></main></body></html>`;

/** What the caller's `data` holds: no event's message may carry it. */
const PRIVATE_NOTE = 'private-note-7731';
/** What the caller answers the input request with. */
const MEMBER_CODE = 'M-Zebra 77';

let fixtures: FixtureServer;
let site: AutomateSite;
let stack: ResearchStack;
const check = sdkEventChecker();

beforeAll(async () => {
  fixtures = await startFixtureServer({ '/keepers': html(PAGE) });
  site = await startAutomateSite();
  stack = await startResearchStack('clients');
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await site?.close();
  await fixtures?.close();
});

interface Event {
  event: string;
  data: Record<string, unknown>;
}

const eventsOf = (stream: SseStream): Event[] =>
  stream.events.map((message) => ({
    event: message.event!,
    data: JSON.parse(message.data ?? '{}') as Record<string, unknown>,
  }));

/** The text the Go CLI prints after an event's name in its timeline (internal/ui, summariseEvent). */
function timelineText(data: Record<string, unknown>): string {
  const text = (name: string) => (typeof data[name] === 'string' ? (data[name] as string) : '');
  if (text('operation')) return text('operation');
  if (text('phase')) return text('phase');
  if (text('message')) return text('message');
  if (text('title') && text('url')) return `${text('title')} (${text('url')})`;
  return text('url') || text('task') || text('finalAnswer');
}

/** Streams a run from `path` on the research stack to its end; every event fits the client's types. */
async function streamed(
  path: string,
  body: unknown,
  done = 'complete',
): Promise<{ stream: SseStream; events: Event[] }> {
  const stream = await SseStream.open(`${stack.base}${path}`, { key: apiKey(), method: 'POST', body });
  expect(stream.response.status).toBe(200);
  await stream.until((s) => s.events.some((m) => m.event === done || m.event === 'error'), 90_000);
  const events = eventsOf(stream);
  const operation = path === '/research' ? 'research' : 'automate';
  const misfits = events.map((event) => ({ event: event.event, problems: check(operation, event) }));
  expect(misfits.filter(({ problems }) => problems.length > 0)).toEqual([]);
  return { stream, events };
}

async function temporalRunIdOf(workflowId: string): Promise<string> {
  return withStackClient(async (client) => (await client.workflow.getHandle(workflowId).describe()).runId);
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('the support id, x-trace-id', () => {
  it("is the id of the request's run", async () => {
    const res = await post('/extract/markdown', { url: fixtures.url('/keepers'), effort: 'min', nocache: true });
    expect(res.status).toBe(200);
    const traceId = res.headers.get('x-trace-id') ?? '';
    expect(traceId).toMatch(UUID);
    expect(traceId).toBe(await temporalRunIdOf(res.headers.get('x-workflow-id')!));
  });

  it('is the request id of an answer given before any run started', async () => {
    const refusals = [
      await call('POST', '/extract/markdown', { json: { url: fixtures.url('/keepers') }, key: 'wl_wrong_0123456789' }),
      await call('POST', '/extract/markdown', { json: {}, headers: { 'x-request-id': 'cli-support-17' } }),
      await call('GET', '/no/such/route'),
    ];
    expect(refusals.map((res) => res.status)).toEqual([401, 400, 404]);
    for (const res of refusals) {
      expect(res.headers.get('x-trace-id')).toBeTruthy();
      expect(res.headers.get('x-trace-id')).toBe(res.headers.get('x-request-id'));
    }
    expect(refusals[1]!.headers.get('x-trace-id')).toBe('cli-support-17');
  });

  it('is the same on a stream and on reading it again', async () => {
    await scriptModel(volcanoScript());
    const { stream } = await streamed('/research', { query: 'Roman aqueducts gradient Pont du Gard', mode: 'fast' });
    const traceId = stream.response.headers.get('x-trace-id') ?? '';
    expect(traceId).toMatch(UUID);
    const again = await fetch(`${stack.base}/runs/${stream.response.headers.get('x-run-id')}/events`, {
      headers: { authorization: `Bearer ${apiKey()}` },
    });
    expect(again.headers.get('x-trace-id')).toBe(traceId);
    await again.body?.cancel();
  });
});

describe('the timeline of a research run', () => {
  it("gives every event a line, read as the hosted service's are", async () => {
    await scriptModel(volcanoScript());
    const { events } = await streamed('/research', { query: 'Roman aqueducts gradient Pont du Gard', mode: 'fast' });
    expect(events.map((event) => event.event)).toEqual(FAST_EVENTS);
    const lines = events.map((event) => timelineText(event.data));
    // The hosted `fast` stream's lines (shared/hosted-traces), its counts as this run found them.
    expect(lines).toEqual([
      'Starting research',
      'Planning research strategy',
      expect.stringMatching(/^Planning complete: \d+ quer(y|ies)$/),
      'Starting iteration 1 of 1',
      expect.stringMatching(/^Searching with \d+ quer(y|ies)$/),
      expect.stringMatching(/^Found \d+ URLs?$/),
      'Iteration 1 complete (fast mode)',
      'Writing report',
      'Report draft complete',
      'Research complete',
    ]);
  });
});

const PLAN: FormatReply = {
  keep: true,
  content: JSON.stringify({
    plan: 'Verify the membership',
    successCriteria: 'Verified',
    actionItems: ['Ask for the code'],
  }),
};
const ACCEPT: FormatReply = {
  keep: true,
  content: JSON.stringify({ completionQuality: 'complete', observation: 'Done', feedback: '' }),
};

describe('the timeline of an automate run', () => {
  it('gives every event a line, the input request the id to answer, and no line any secret', async () => {
    await scriptModel({
      automate_plan: [PLAN],
      automate_validation: [ACCEPT],
      automate_action: [
        decide('Verify membership', {
          action: 'request_input',
          ref: '{{ref:textbox "Member code"}}',
          text: 'Member code',
        }),
        { ...decide('', { action: 'done', text: 'Verified' }), keep: true },
      ],
    });
    const stream = await SseStream.open(`${stack.base}/automate`, {
      key: apiKey(),
      method: 'POST',
      body: {
        task: 'Verify my membership',
        url: `${site.url}/verify`,
        interactive: true,
        maxIterations: 4,
        data: { note: PRIVATE_NOTE, password: SHOP_USER.password },
      },
    });
    expect(stream.response.status).toBe(200);
    await stream.until((s) => s.events.some((m) => m.event === 'interactive:form_data:request'), 90_000);
    const asked = eventsOf(stream).find((event) => event.event === 'interactive:form_data:request')!.data;
    const request = asked as unknown as { requestId: string; fields: { ref: string }[] };
    // The line names the id that `tabstack agent input <request-id>` takes.
    expect(timelineText(asked)).toContain(request.requestId);
    const answered = await fetch(`${stack.base}/automate/${request.requestId}/input`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
      body: JSON.stringify({ fields: [{ ref: request.fields[0]!.ref, value: MEMBER_CODE }] }),
    });
    expect(answered.status).toBe(202);
    await stream.until((s) => s.events.some((m) => m.event === 'done'), 90_000);
    const events = eventsOf(stream);
    const misfits = events.map((event) => ({ event: event.event, problems: check('automate', event) }));
    expect(misfits.filter(({ problems }) => problems.length > 0)).toEqual([]);
    const untold = events.filter((event) => event.event !== 'done' && !timelineText(event.data));
    expect(untold).toEqual([]);
    expect(events.filter((event) => event.event !== 'done' && typeof event.data.message !== 'string')).toEqual([]);
    const messages = events.map((event) => String(event.data.message ?? '')).join('\n');
    for (const secret of [PRIVATE_NOTE, SHOP_USER.password, MEMBER_CODE, 'Zebra'])
      expect({ secret, inMessages: messages.includes(secret) }).toEqual({ secret, inMessages: false });
    const trace = events.find((event) => event.event === 'task:trace_context')!.data.traceId;
    expect(stream.response.headers.get('x-trace-id')).toBe(trace);
    expect(events.find((event) => event.event === 'task:completed')!.data).toMatchObject({
      success: true,
      finalAnswer: 'Verified',
      message: 'Task completed',
    });
  }, 150_000);

  it('puts the reason of a failed task where clients print the result', async () => {
    await scriptModel({
      automate_plan: [PLAN],
      automate_validation: [ACCEPT],
      automate_action: [{ ...decide('', { action: 'scroll', direction: 'down' }), keep: true }],
    });
    const { events } = await streamed('/automate', { task: 'Scroll forever', url: site.url, maxIterations: 2 }, 'done');
    const reason = 'the task was not done within maxIterations steps';
    const completed = events.find((event) => event.event === 'task:completed')!.data;
    expect(completed).toMatchObject({ success: false, finalAnswer: reason, message: `Task failed: ${reason}` });
    expect(timelineText(completed)).toBe(`Task failed: ${reason}`);
    expect(events.find((event) => event.event === 'complete')!.data).toMatchObject({
      success: false,
      finalAnswer: reason,
      error: { code: 'MAX_ITERATIONS', message: reason },
      message: `Task failed: ${reason}`,
    });
  }, 120_000);
});

describe("a page's content", () => {
  it('keeps its headline, the same with metadata true or false', async () => {
    const url = fixtures.url('/keepers');
    const apart = await post<{ content: string; metadata: { title: string } }>('/extract/markdown', {
      url,
      effort: 'min',
      metadata: true,
    });
    const framed = await post<{ content: string }>('/extract/markdown', { url, effort: 'min', metadata: false });
    expect(apart.body.metadata.title).toBe(TITLE);
    expect(apart.body.content).toMatch(new RegExp(`^# ${TITLE}\\n\\nThe keepers lit the lamp`));
    expect(framed.body.content).toMatch(new RegExp(`^---\\ntitle: ${TITLE}\\n(?:[^]*?\\n)?---\\n\\n# ${TITLE}\\n`));
    expect(framed.body.content.endsWith(apart.body.content)).toBe(true);
  });
});
