import { ulid } from 'ulid';
import { decide } from '../support/agentScript';
import { account, newOrganization } from '../support/admin';
import { startAutomateSite, type AutomateSite } from '../support/automateSite';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { SseStream } from '../support/sseClient';

/**
 * Isolation between organizations (issue #23 §5), on every endpoint that takes an id: organization
 * B presenting organization A's ids gets exactly the answer of an id that never existed, so it
 * learns nothing of A's runs, and A's run goes on as if B had never asked. Then the cache, the
 * ledger and the limits. One stack that can research and automate (test/support/researchStack.ts)
 * serves every test, with two organizations made by the admin command.
 */

let stack: ResearchStack;
let site: AutomateSite;
let pages: FixtureServer;
let a: { org: string; key: string };
let b: { org: string; key: string };
const PAGE_TOKEN = `only-a-knows-${ulid()}`;

beforeAll(async () => {
  [stack, site, pages] = await Promise.all([
    startResearchStack('isolation'),
    startAutomateSite(),
    startFixtureServer({
      '/private': html(
        `<html><head><title>Private</title></head><body><article><h1>Private</h1><p>A page reached with a token only organization A holds: ${PAGE_TOKEN}, long enough to be the main content.</p></article></body></html>`,
      ),
    }),
  ]);
  [a, b] = await Promise.all([newOrganization('iso-a', 100_000), newOrganization('iso-b', 100_000)]);
}, 120_000);

afterAll(async () => {
  await stack?.close();
  await site?.close();
  await pages?.close();
});

interface Answer {
  status: number;
  type: string | null;
  body: string;
  /** The names of its headers: a header only one of two answers has would tell them apart. */
  headers: string[];
}

/** What a request got, as the caller can see it: status, content type, body and which headers. */
async function answerOf(path: string, key: string, init: { method?: string; body?: unknown; lastEventId?: string }) {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.lastEventId !== undefined) headers['last-event-id'] = init.lastEventId;
  const response = await fetch(`${stack.base}${path}`, {
    method: init.method ?? 'GET',
    headers,
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const names: string[] = [];
  response.headers.forEach((_value, name) => names.push(name));
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    body: await response.text(),
    headers: names.sort(),
  };
}

/**
 * B's answers for A's id and for an id of the same shape that never existed, side by side: they
 * must be equal, and not a success.
 */
async function expectUnknownToB(
  what: string,
  path: (id: string) => string,
  ownId: string,
  unknownId: string,
  init: { method?: string; body?: unknown; lastEventId?: string } = {},
): Promise<Answer> {
  const asB = await answerOf(path(ownId), b.key, init);
  const unknown = await answerOf(path(unknownId), b.key, init);
  expect({ what, asB }).toEqual({ what, asB: unknown });
  expect(asB.status).toBeGreaterThanOrEqual(400);
  return asB;
}

const PLAN: FormatReply = {
  keep: true,
  content: JSON.stringify({ plan: 'Pay for the order', successCriteria: 'The order is paid', actionItems: [] }),
};
const ACCEPT: FormatReply = {
  keep: true,
  content: JSON.stringify({ completionQuality: 'complete', observation: 'Done', feedback: '' }),
};
const ref = (role: string, name: string) => `{{ref:${role} "${name}"}}`;

async function script(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = { replies: [], byFormat };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

describe("another organization's ids", () => {
  it("research: B cannot resume A's stream, from any Last-Event-ID, while it runs or after; A's stream is whole", async () => {
    // The answer comes late, so B asks while A's run is still going.
    await script(
      volcanoScript({
        research_answer: [
          { content: JSON.stringify({ report: '# Volcanoes\n\nIceland is volcanic.' }), keep: true, delayMs: 3000 },
        ],
      }),
    );
    const before = await account(b.org);
    const stream = await SseStream.open(`${stack.base}/research`, {
      key: a.key,
      method: 'POST',
      body: { query: 'How volcanic is Iceland?', nocache: true },
    });
    expect(stream.response.status).toBe(200);
    const runId = stream.response.headers.get('x-run-id')!;
    await stream.until((s) => s.events.length >= 2, 60_000);
    const unknownId = `research-${ulid()}`;
    const resume = (id: string) => `/runs/${id}/events`;
    for (const phase of ['running', 'ended']) {
      for (const lastEventId of [undefined, '1', '2', '100000', 'abc'])
        await expectUnknownToB(`${phase}, Last-Event-ID ${lastEventId}`, resume, runId, unknownId, { lastEventId });
      if (phase === 'running') {
        expect(stream.events.at(-1)?.event).not.toBe('complete');
        await stream.finished;
      }
    }
    expect(stream.events.at(-1)!.event).toBe('complete');
    expect(stream.events.map((event) => Number(event.id))).toEqual(stream.events.map((_e, i) => i + 1));
    // A reads its own stream again, all of it.
    const again = await SseStream.open(`${stack.base}${resume(runId)}`, { key: a.key });
    await again.finished;
    expect(again.events.map((event) => event.data)).toEqual(stream.events.map((event) => event.data));
    // B's attempts cost B nothing.
    expect((await account(b.org)).balance).toBe(before.balance);
  }, 120_000);

  it("automate: B cannot answer A's input request nor resume A's stream; A answers and its task goes on", async () => {
    await script({
      automate_plan: [PLAN],
      automate_validation: [ACCEPT],
      automate_action: [
        decide('Place order', { action: 'request_input', ref: ref('textbox', 'Card number'), text: 'Payment card' }),
        { ...decide('', { action: 'done', text: 'Paid' }), keep: true },
      ],
    });
    const before = await account(b.org);
    const stream = await SseStream.open(`${stack.base}/automate`, {
      key: a.key,
      method: 'POST',
      body: { task: 'Pay for the order', interactive: true, url: `${site.url}/checkout`, maxIterations: 5 },
    });
    expect(stream.response.status).toBe(200);
    const runId = stream.response.headers.get('x-run-id')!;
    await stream.until((s) => s.events.some((m) => m.event === 'interactive:form_data:request'), 90_000);
    const request = stream.events.find((m) => m.event === 'interactive:form_data:request')!;
    const requestId = (JSON.parse(request.data!) as { requestId: string }).requestId;
    const unknownRequestId = requestId.replace(/^[0-9A-Z]{26}/, ulid());
    const input = (id: string) => `/automate/${id}/input`;
    for (const body of [{ cancelled: true }, { fields: [{ ref: 'e1', value: '4111 1111 1111 1111' }] }]) {
      const refused = await expectUnknownToB(`input ${JSON.stringify(body)}`, input, requestId, unknownRequestId, {
        method: 'POST',
        body,
      });
      expect(refused.status).toBe(410);
    }
    const resume = (id: string) => `/runs/${id}/events`;
    for (const lastEventId of [undefined, '1', '100000'])
      await expectUnknownToB(`resume, Last-Event-ID ${lastEventId}`, resume, runId, `automate-${ulid()}`, {
        lastEventId,
      });
    // A's request is still open for A alone: B's answers reached nothing.
    const accepted = await answerOf(input(requestId), a.key, { method: 'POST', body: { cancelled: true } });
    expect({ status: accepted.status, body: JSON.parse(accepted.body) as unknown }).toEqual({
      status: 202,
      body: { status: 'accepted' },
    });
    await stream.until((s) => s.events.some((m) => m.event === 'done'), 90_000);
    const complete = stream.events.find((m) => m.event === 'complete')!;
    expect(JSON.parse(complete.data!)).toMatchObject({ success: true });
    // Once A's run has ended, B's answers for it are still those of an unknown id.
    await expectUnknownToB('input after the run', input, requestId, unknownRequestId, {
      method: 'POST',
      body: { cancelled: true },
    });
    await expectUnknownToB('resume after the run', resume, runId, `automate-${ulid()}`);
    expect((await account(b.org)).balance).toBe(before.balance);
  }, 180_000);
});

describe("another organization's cache entries", () => {
  it("gives B no hit from A's entry for the same URL: B's page is fetched afresh, at the full price", async () => {
    const url = `${pages.url('/private')}?token=${PAGE_TOKEN}`;
    const extract = async (key: string) => {
      const response = await fetch(`${stack.base}/extract/markdown`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ url, effort: 'min' }),
      });
      return { status: response.status, cache: response.headers.get('x-cache') };
    };
    expect(await extract(a.key)).toEqual({ status: 200, cache: 'miss' });
    expect(await extract(a.key)).toEqual({ status: 200, cache: 'hit' });
    const fetched = pages.hits.get('/private');
    expect(await extract(b.key)).toEqual({ status: 200, cache: 'miss' });
    expect(pages.hits.get('/private')).toBe(fetched! + 1);
    // B paid for a fetch (10), not for a hit (1): its answer came from no entry of A's.
    const charges = (await account(b.org)).ledger.filter((entry) => entry.operation?.startsWith('extract-markdown'));
    expect(charges.map((entry) => entry.amount)).toEqual([-10]);
  }, 60_000);
});

describe("another organization's research page cache", () => {
  /** The corpus pages a run fetched: those whose hits went up (robots.txt aside, which is not cached content). */
  const fetchedSince = (before: Map<string, number>): string[] =>
    [...stack.corpus.hits]
      .filter(([path, hits]) => !path.endsWith('/robots.txt') && hits > (before.get(path) ?? 0))
      .map(([path]) => path)
      .sort();

  async function research(key: string): Promise<string[]> {
    const before = new Map(stack.corpus.hits);
    const stream = await SseStream.open(`${stack.base}/research`, {
      key,
      method: 'POST',
      body: { query: 'Which lava types does Iceland have?' },
    });
    await stream.finished;
    expect(stream.events.at(-1)?.event).toBe('complete');
    return fetchedSince(before);
  }

  it("reads B's pages afresh, not from the entries A's research left", async () => {
    // Organizations whose partitions are empty: the stream test above refreshed A's entries.
    const [reader, other] = await Promise.all([newOrganization('iso-c', 10_000), newOrganization('iso-d', 10_000)]);
    await script(volcanoScript());
    const first = await research(reader.key);
    expect(first.length).toBeGreaterThan(0);
    // The cache is in effect: the same organization's second run reads every page from it.
    expect(await research(reader.key)).toEqual([]);
    expect(await research(other.key)).toEqual(expect.arrayContaining(first));
  }, 120_000);
});

describe("another organization's ledger and limits", () => {
  it('are nowhere in the HTTP interface: no route names them, and /metrics names no organization', async () => {
    const nowhere = await answerOf(`/no-such-route-${ulid()}`, b.key, {});
    expect(nowhere.status).toBe(404);
    for (const path of [
      '/credits',
      '/ledger',
      '/limits',
      `/organizations/${a.org}`,
      `/organizations/${a.org}/credits`,
      `/orgs/${a.org}/ledger`,
      `/credits/${a.org}`,
    ])
      expect({ path, answer: await answerOf(path, b.key, {}) }).toEqual({ path, answer: nowhere });
    const root = new URL(stack.base).origin;
    const metrics = await (await fetch(`${root}/metrics`)).text();
    expect(metrics).toContain('webloom_credits_charged_total');
    expect(metrics).not.toContain(a.org);
    expect(metrics).not.toContain(b.org);
  });

  it("tells an organization out of credits the spec's message alone, no balance nor run", async () => {
    const poor = await newOrganization('iso-poor', 5);
    const response = await fetch(`${stack.base}/extract/markdown`, {
      method: 'POST',
      headers: { authorization: `Bearer ${poor.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: pages.url('/private'), effort: 'min', nocache: true }),
    });
    expect(response.status).toBe(402);
    expect(await response.text()).toBe(JSON.stringify({ error: 'insufficient credits' }));
    expect(response.headers.get('x-workflow-id')).toBeNull();
  });
});
