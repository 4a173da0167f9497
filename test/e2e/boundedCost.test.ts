import { decide } from '../support/agentScript';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { apiUrl, apiKey, call, post } from '../support/api';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { SseStream } from '../support/sseClient';
import { eventually } from '../support/eventually';
import { judged } from '../support/reliabilityVerdicts';

/**
 * One hostile input costs its own run, not everyone's (issue #20): a `data` value, a page's
 * attribute or a body's nesting that the service once spent minutes on, or failed on, is now
 * answered promptly, and another organization's work on the same workers goes on meanwhile.
 * On the shared stack, with the model stand-in playing the agent.
 */

/** No `@`, no capital run, no digits: the inputs the former patterns went quadratic on. */
const LONG = 'a'.repeat(150_000);

let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/hostile-form': html(`<!doctype html><html><head><title>${'Title '.repeat(40_000)}</title></head><body>
<h1>Hostile form</h1>
<form method="post" action="/send">
  <label for="q">Question</label>
  <input id="q" name="${LONG}" placeholder="${LONG}" pattern="${LONG}" min="${LONG}" autocomplete="${'on '.repeat(50_000)}"
    aria-describedby="help">
  <p id="help">${LONG}</p>
  <input type="radio" name="${LONG}" value="${LONG}"><input type="radio" name="${LONG}" value="b${LONG}">
  <button>Send</button>
</form></body></html>`),
    '/article': html(
      `<!doctype html><html><head><title>Harbour news</title></head><body><main><article><h1>Harbour news</h1>${'<p>The harbour council voted on the new quay this morning.</p>'.repeat(20)}</article></main></body></html>`,
    ),
  });
});

afterAll(async () => {
  await fixtures?.close();
});

const ACCEPT: FormatReply = {
  keep: true,
  content: JSON.stringify({ completionQuality: 'complete', observation: 'Done', feedback: '' }),
};
const PLAN: FormatReply = {
  keep: true,
  content: JSON.stringify({ plan: 'Fill the question', successCriteria: 'It is filled', actionItems: [] }),
};

async function script(actions: FormatReply[]): Promise<void> {
  const body: StandInScript = {
    replies: [],
    byFormat: { automate_plan: [PLAN], automate_validation: [ACCEPT], automate_action: actions },
  };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

interface Event {
  event: string;
  data: Record<string, unknown>;
}

/** Streams a task to its end (or `timeoutMs`); its events and how long it took. */
async function automate(body: Record<string, unknown>, timeoutMs: number): Promise<{ events: Event[]; ms: number }> {
  const started = Date.now();
  const stream = await SseStream.open(`${apiUrl()}/automate`, { key: apiKey(), method: 'POST', body });
  expect(stream.response.status).toBe(200);
  try {
    await stream.until((s) => s.events.some((m) => m.event === 'done' || m.event === 'error'), timeoutMs);
  } finally {
    stream.abort();
  }
  const events = stream.events.map((message) => ({
    event: message.event!,
    data: JSON.parse(message.data ?? '{}') as Record<string, unknown>,
  }));
  return { events, ms: Date.now() - started };
}

/** Another organization's Extract Markdown, rendered in the browser: its status and time. */
async function otherOrganizationsRender(): Promise<{ status: number; ms: number }> {
  const started = Date.now();
  const res = await post(
    '/extract/markdown',
    { url: fixtures.url('/article'), effort: 'max', nocache: true },
    process.env.TEST_OTHER_ORG_KEY!,
  );
  return { status: res.status, ms: Date.now() - started };
}

test('answers 400 for data nested 6,000 deep', async () => {
  const data = `${'{"a":'.repeat(6_000)}"leaf"${'}'.repeat(6_000)}`;
  const res = await call('POST', '/automate', { raw: `{"task":"Find the price","data":${data}}` });
  const outcome = `${res.status} ${String(res.body.error)}`;
  await judged('bounded-cost', { fault: 'data nested 6,000 deep', target: 'POST /automate', outcome }, () =>
    expect({ status: res.status, body: res.body }).toEqual({
      status: 400,
      body: { error: 'data must be nested at most 32 levels deep' },
    }),
  );
});

test(
  'runs a task with a 65,000-character data string on a page of 150,000-character attributes promptly, ' +
    'while another organization renders',
  async () => {
    await script([
      decide('Hostile form', { action: 'fill', ref: '{{ref:textbox "Question"}}', dataPath: 'notes' }),
      decide('Hostile form', { action: 'fill', ref: '{{ref:textbox "Question"}}', value: 'a short answer' }),
      { ...decide('', { action: 'done', text: 'Filled' }), keep: true },
    ]);
    const task = automate(
      {
        task: 'Fill in the question',
        url: fixtures.url('/hostile-form'),
        // With the task, within the test stack's 64 KiB body limit.
        data: { notes: 'a'.repeat(65_000) },
        maxIterations: 5,
      },
      90_000,
    );
    await eventually(() => fixtures.hits.get('/hostile-form'), {
      what: "the task's browser to load the hostile form",
      timeoutMs: 60_000,
    });
    const other = await otherOrganizationsRender();
    const { events, ms } = await task;

    const names = events.map((event) => event.event);
    const outcomes = events.filter((event) => event.event === 'browser:action_completed').map((event) => event.data);
    const row = {
      fault: '65,000-character data on a page of 150,000-character attributes',
      target: 'Automate',
      outcome: `ended with ${names.at(-1) ?? 'nothing'}, actions ${outcomes.map((o) => String(o.success)).join(', ')}`,
      figures: { ms, 'other organization ms': other.ms, 'other organization status': other.status },
    };
    await judged('bounded-cost', row, () => {
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(30_000);
      expect(names.at(-1)).toBe('done');
      expect(ms).toBeLessThan(60_000);
      expect(outcomes.map((outcome) => outcome.success)).toEqual([true, true]);
    });
  },
  150_000,
);

/** Every string in `value`, however deep. */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (value && typeof value === 'object') return Object.values(value).flatMap(strings);
  return [];
}

test('asks the caller about a hostile form with every word and rule of it bounded', async () => {
  await script([
    decide('Hostile form', { action: 'request_input', ref: '{{ref:textbox "Question"}}', text: 'The question' }),
    { ...decide('', { action: 'done', text: 'Declined' }), keep: true },
  ]);
  const stream = await SseStream.open(`${apiUrl()}/automate`, {
    key: apiKey(),
    method: 'POST',
    body: { task: 'Ask me the question', url: fixtures.url('/hostile-form'), interactive: true, maxIterations: 4 },
  });
  try {
    await stream.until((s) => s.events.some((m) => m.event === 'interactive:form_data:request'), 90_000);
    const request = JSON.parse(stream.events.find((m) => m.event === 'interactive:form_data:request')!.data!) as {
      requestId: string;
      pageTitle: string;
      fields: Record<string, unknown>[];
    };
    const longest = Math.max(...request.fields.flatMap(strings).map((text) => text.length));
    const row = {
      fault: 'a form of 150,000-character attributes',
      target: 'interactive Automate, the form asked about',
      outcome: `${request.fields.length} fields, longest text ${longest}, title ${request.pageTitle.length}`,
    };
    await judged('bounded-cost', row, () => {
      expect(request.fields.length).toBeGreaterThanOrEqual(2);
      expect(request.pageTitle.length).toBeLessThanOrEqual(1_000);
      const question = request.fields.find((field) => field.label === 'Question')!;
      expect(question).toMatchObject({ description: 'a'.repeat(200) });
      expect(longest).toBeLessThanOrEqual(200);
    });
    const cancelled = await call('POST', `/automate/${request.requestId}/input`, { json: { cancelled: true } });
    expect(cancelled.status).toBe(202);
  } finally {
    stream.abort();
  }
}, 150_000);
