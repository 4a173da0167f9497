import { randomUUID } from 'node:crypto';
import { agentDecision, decide } from '../support/agentScript';
import { apiKey, apiUrl, post, type ApiResponse } from '../support/api';
import { startCanary, type Canary } from '../support/canary';
import { html, redirect, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { ELSEWHERE, loopbackSpellings, oneOfEachKind } from '../support/internalAddresses';
import { NAME_ZONE } from '../support/nameServer';
import { recordReliability, type ReliabilityRow } from '../support/reliabilityRecord';
import { SseStream } from '../support/sseClient';

/**
 * The address policy as a table: every way of writing an internal address, through every path a
 * request can take to it (the plain fetch of `min` and `standard`, the browser of `max`, Extract
 * JSON; directly, after a redirect, after a chain of them, as a page's subresource), with the
 * stack resolving names through the tests' own DNS server (test/support/nameServer.ts). Each is
 * refused with the spec's 422, and a canary listening on loopback, TCP and UDP, IPv4 and IPv6,
 * on the port every address names, proves that nothing arrived.
 */

const REFUSED = { status: 422, body: { error: 'access to internal resources is not allowed' } };

let canary: Canary;
let pages: FixtureServer;
/** Redirect hops, by the name a test gives them. */
const hops: Record<string, string> = {};

const extract = (url: string, effort: string) => post('/extract/markdown', { url, effort });
const extractJson = (url: string) =>
  post('/extract/json', { url, effort: 'min', json_schema: { type: 'object', properties: { a: { type: 'string' } } } });

/** What reached the canary before the last row was noted. */
let canarySeen = 0;
/** The test's rows for docs/reliability.md, written once it ends. */
let rows: ReliabilityRow[] = [];

/**
 * Notes one address tried on one path, with what reached the canary since the row before; the
 * canary's port is left out, as it changes from run to run.
 */
function note(address: string, path: string, answer: Pick<ReliabilityRow, 'outcome' | 'ok'>): void {
  const hits = canary.arrivals().length - canarySeen;
  canarySeen += hits;
  rows.push({
    fault: address.replace(`:${canary.port}`, ''),
    target: path,
    outcome: answer.outcome,
    ok: answer.ok && hits === 0,
    figures: { 'canary hits': hits },
  });
}

/** An answer as a row of the record: refused as the spec says, or not. */
const refusal = (res: ApiResponse) => ({
  outcome: `${res.status} ${typeof res.body.error === 'string' ? res.body.error : ''}`.trim(),
  ok: res.status === REFUSED.status && res.body.error === REFUSED.body.error,
});

/** A fresh name whose first answer is an address the stack may reach and every later one the canary's. */
const rebinding = () => `rebind-${randomUUID().slice(0, 8)}.${NAME_ZONE}`;

beforeAll(async () => {
  canary = await startCanary();
  const spellings = [...loopbackSpellings(canary.port), ...ELSEWHERE];
  const routes: Parameters<typeof startFixtureServer>[0] = {};
  spellings.forEach((spelling, index) => {
    hops[spelling] = `/to/${index}`;
    routes[`/to/${index}`] = redirect(`http://${spelling}/`, 302);
    routes[`/chain/${index}/1`] = redirect(`/chain/${index}/2`, 301);
    routes[`/chain/${index}/2`] = redirect(`/chain/${index}/3`, 307);
    routes[`/chain/${index}/3`] = redirect(`http://${spelling}/`, 308);
  });
  const targets = loopbackSpellings(canary.port).map((spelling) => `http://${spelling}/`);
  routes['/start'] = html('<!doctype html><title>Start</title><h1>Start</h1><p>Nothing here but words.</p>');
  routes['/subresources'] = html(`<!doctype html><html><head><title>Subresources</title>
    ${targets.map((url) => `<link rel="stylesheet" href="${url}css">`).join('')}
    </head><body><h1>A page that reaches inward</h1><p>Every kind of request a page can make.</p>
    ${targets.map((url) => `<img src="${url}img"><iframe src="${url}frame"></iframe><script src="${url}js"></script>`).join('')}
    <script>
      const targets = ${JSON.stringify(targets)};
      for (const url of targets) {
        fetch(url + 'fetch').catch(() => {});
        navigator.sendBeacon(url + 'beacon', 'x');
        try { new WebSocket(url.replace('http', 'ws') + 'ws'); } catch {}
        try { new EventSource(url + 'sse'); } catch {}
        try { new Worker(url + 'worker.js'); } catch {}
      }
    </script></body></html>`);
  pages = await startFixtureServer(routes);
});

afterAll(async () => {
  await pages?.close();
  await canary?.close();
});

afterEach(() => {
  recordReliability('address-policy', rows);
  rows = [];
  expect(canary.arrivals()).toEqual([]);
});

describe('every spelling of an internal address, refused on every path', () => {
  const spellings = () => [...loopbackSpellings(canary.port), ...ELSEWHERE];

  it.each(['min', 'standard', 'max'])('named in the request, effort %s', async (effort) => {
    for (const spelling of spellings()) {
      const res = await extract(`http://${spelling}/`, effort);
      note(spelling, `named, ${effort}`, refusal(res));
      expect({ spelling, status: res.status, body: res.body }).toEqual({ spelling, ...REFUSED });
    }
  });

  it('named in an Extract JSON request', async () => {
    for (const spelling of spellings()) {
      const res = await extractJson(`http://${spelling}/`);
      note(spelling, 'named, Extract JSON', refusal(res));
      expect({ spelling, status: res.status, body: res.body }).toEqual({ spelling, ...REFUSED });
    }
  });

  it.each(['min', 'max'])('behind a redirect, effort %s', async (effort) => {
    const browserKinds = [
      ...oneOfEachKind(loopbackSpellings(canary.port)),
      ...ELSEWHERE.filter((spelling) => !/^[[\d]/.test(spelling)),
    ];
    for (const spelling of effort === 'max' ? browserKinds : spellings()) {
      const res = await extract(pages.url(hops[spelling]!), effort);
      note(spelling, `redirect, ${effort}`, refusal(res));
      expect({ spelling, status: res.status, body: res.body }).toEqual({ spelling, ...REFUSED });
    }
  });

  it.each(['min', 'max'])('at the end of a chain of redirects (301, 307, 308), effort %s', async (effort) => {
    for (const spelling of [`a-127-0-0-1.${NAME_ZONE}:${canary.port}`, `[::1]:${canary.port}`]) {
      const path = `/chain/${Object.keys(hops).indexOf(spelling)}/1`;
      const res = await extract(pages.url(path), effort);
      note(spelling, `redirect chain, ${effort}`, refusal(res));
      expect({ path, status: res.status, body: res.body }).toEqual({ path, ...REFUSED });
    }
  });

  it("as a page's stylesheets, images, frames, scripts, fetches, beacons, sockets, event streams and workers", async () => {
    const res = await extract(pages.url('/subresources'), 'max');
    note('every loopback spelling', 'subresources, max', refusal(res));
    expect(res).toMatchObject(REFUSED);
  });
});

describe('Automate', () => {
  it('refuses every spelling as the start URL, before the stream', async () => {
    for (const spelling of [...loopbackSpellings(canary.port), ...ELSEWHERE]) {
      const res = await post('/automate', { task: 'Read the page', url: `http://${spelling}/` });
      note(spelling, 'Automate start URL', refusal(res));
      expect({ spelling, status: res.status, body: res.body }).toEqual({ spelling, ...REFUSED });
    }
  });

  it('lets the agent navigate to none of them, nor through a redirect or a rebinding name', async () => {
    const spellings = oneOfEachKind(loopbackSpellings(canary.port));
    const targets = [
      ...spellings.map((spelling) => `http://${spelling}/`),
      pages.url(hops[`127.0.0.1:${canary.port}`]!),
      `http://${rebinding()}:${canary.port}/`,
    ];
    const addresses = [...spellings, `redirect to 127.0.0.1:${canary.port}`, 'name rebound after the check'];
    // A scroll between refusals, since five failed steps in a row end the task.
    const navigations: FormatReply[] = targets.flatMap((url) => [
      decide('', { action: 'navigate', url }),
      decide('', { action: 'scroll', direction: 'down' }),
    ]);
    const script: StandInScript = {
      replies: [],
      byFormat: {
        automate_plan: [
          { keep: true, content: JSON.stringify({ plan: 'Go', successCriteria: 'Gone', actionItems: [] }) },
        ],
        automate_action: [...navigations, { keep: true, content: agentDecision({ action: 'done', text: 'Stayed' }) }],
        automate_validation: [
          {
            keep: true,
            content: JSON.stringify({ completionQuality: 'complete', observation: 'Done', feedback: '' }),
          },
        ],
      },
    };
    await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(script) });
    const stream = await SseStream.open(`${apiUrl()}/automate`, {
      key: apiKey(),
      method: 'POST',
      body: { task: 'Visit each address', url: pages.url('/start'), maxIterations: 2 * targets.length + 2 },
    });
    expect(stream.response.status).toBe(200);
    await stream.until((s) => s.events.some((m) => m.event === 'done' || m.event === 'error'), 240_000);
    const outcomes = stream.events
      .filter((m) => m.event === 'browser:action_completed')
      .map((m) => JSON.parse(m.data ?? '{}') as { success?: boolean; error?: string });
    addresses.forEach((address, index) => {
      const navigation = outcomes[2 * index];
      note(address, 'Automate navigation', {
        outcome: navigation ? (navigation.error ?? `success ${String(navigation.success)}`) : 'no step taken',
        ok:
          navigation?.success === false && /^access to internal resources is not allowed/.test(navigation.error ?? ''),
      });
    });
    expect(outcomes.map((outcome) => [outcome.success, outcome.error])).toEqual(
      targets.flatMap(() => [
        [false, expect.stringMatching(/^access to internal resources is not allowed/)],
        [true, undefined],
      ]),
    );
  }, 300_000);
});

describe('a name whose answer changes between the check and the connection', () => {
  it.each(['min', 'standard', 'max'])('is refused at the connection, effort %s', async (effort) => {
    const res = await extract(`http://${rebinding()}:${canary.port}/`, effort);
    note('name rebound after the check', `named, ${effort}`, refusal(res));
    expect(res).toMatchObject(REFUSED);
  });

  it('is refused at the connection in Extract JSON', async () => {
    const res = await extractJson(`http://${rebinding()}:${canary.port}/`);
    note('name rebound after the check', 'named, Extract JSON', refusal(res));
    expect(res).toMatchObject(REFUSED);
  });
});
