import { Client, Connection } from '@temporalio/client';
import { ulid } from 'ulid';
import { Store } from '../../src/billing/store';
import { account, chargeSettled, entriesByRun, newOrganization, type LedgerEntry } from '../support/admin';
import { eventually } from '../support/eventually';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply } from '../support/modelStandIn';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { scriptModel, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { stackEnv } from '../support/secondApi';
import { SseStream } from '../support/sseClient';

/**
 * The refund table (README, Credits; src/billing/settlement.ts) end to end, each row on an
 * organization of its own holding exactly the run's price: how the run ended, whether its charge
 * came back, once. The rows e2e/billing covers (completed, a 404 page, a refused connection) are
 * not repeated. Requests refused before their run are not charged at all. One stack that can
 * research (test/support/researchStack.ts), whose API settles every 200 ms so streamed runs,
 * settled by the sweep, need not wait the default 5 s.
 */

let stack: ResearchStack;
let pages: FixtureServer;
let connection: Connection;
let temporal: Client;

beforeAll(async () => {
  [stack, pages] = await Promise.all([
    // A client that leaves its stream abandons its run after a second, not the default minute.
    startResearchStack('refunds', { BILLING_SETTLE_INTERVAL_MS: '200', STREAM_DISCONNECT_GRACE_MS: '1000' }),
    startFixtureServer({
      '/down': html('<h1>Service unavailable</h1>', 'text/html', 503),
      '/to-internal': (_req, res) => res.writeHead(302, { location: 'http://127.0.0.1:9/admin' }).end(),
      '/huge': html(
        `<html><head><title>Fleet</title></head><body><article>${'<h2>A boat</h2><p>The boat is moored at the quay with its crew of fishermen who mend nets every morning, as every boat of the harbour does.</p>'.repeat(2500)}</article></body></html>`,
      ),
      // Over the reading's node bound (src/extraction/structureBounds.ts), under the download cap.
      '/nodes': html(`<html><body>${'<p>A paragraph of words.</p>'.repeat(200_000)}</body></html>`),
      '/product': html(
        '<html><head><title>Harbour Lamp</title></head><body><article><h1>Harbour Lamp</h1><p>A brass lamp for 42.50 EUR that burns lamp oil for twelve hours, long enough to be the main content.</p></article></body></html>',
      ),
    }),
  ]);
  connection = await Connection.connect({ address: stack.env.TEMPORAL_ADDRESS! });
  temporal = new Client({ connection, namespace: stack.env.TEMPORAL_NAMESPACE, dataConverter });
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await stack?.close();
  await pages?.close();
});

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

async function post(
  path: string,
  key: string,
  body: unknown,
): Promise<{ status: number; error?: string; workflowId: string | null }> {
  const response = await fetch(`${stack.base}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  const error = response.ok ? undefined : (JSON.parse(text) as { error: string }).error;
  return { status: response.status, error, workflowId: response.headers.get('x-workflow-id') };
}

/** The run's ledger entries once its charge is settled, oldest first. */
async function settled(org: string, workflowId: string): Promise<{ balance: number; entries: LedgerEntry[] }> {
  await eventually(() => chargeSettled(workflowId), { what: `the settlement of ${workflowId}`, timeoutMs: 30_000 });
  const { balance, ledger } = await account(org);
  return { balance, entries: entriesByRun(ledger).get(workflowId) ?? [] };
}

const kinds = (entries: LedgerEntry[]) => entries.map((entry) => [entry.kind, entry.amount]);

describe('a request refused before its run', () => {
  it.each([
    ['Extract Markdown without a url', '/extract/markdown', {}, 400],
    ['a body that is not JSON', '/extract/markdown', '{"url": ', 400],
    ['an internal address', '/extract/markdown', { url: 'http://127.0.0.1:9/' }, 422],
    ['a metadata address', '/extract/markdown', { url: 'http://169.254.169.254/latest/meta-data' }, 422],
    ['a URL that is not one', '/extract/markdown', { url: 'not a url' }, 422],
    ['Extract JSON without a schema', '/extract/json', { url: 'https://example.com/' }, 400],
    ['Extract JSON of an internal address', '/extract/json', { url: 'http://10.0.0.1/', json_schema: SCHEMA }, 422],
    ['Research without a query', '/research', {}, 400],
    ['Automate without a task', '/automate', {}, 400],
    ['Automate of an internal address', '/automate', { task: 't', url: 'http://127.0.0.1:9/' }, 422],
  ])('is not charged at all: %s', async (_, path, body, status) => {
    const { org, key } = await newOrganization('refused', 1000);
    const answer = await post(path, key, body);
    expect({ status: answer.status, workflowId: answer.workflowId }).toEqual({ status, workflowId: null });
    const { balance, ledger } = await account(org);
    expect({ balance, ledger: kinds(ledger) }).toEqual({ balance: 1000, ledger: [['grant', 1000]] });
  });
});

describe('a run that failed', () => {
  it.each([
    ['Extract Markdown of a page that answered 503 (ours: refunded)', '/down', 500, true],
    ['Extract Markdown redirected to an internal address (the caller’s: kept)', '/to-internal', 422, false],
  ])('%s', async (_, target, status, refunded) => {
    const { org, key } = await newOrganization('fetch', 10);
    const answer = await post('/extract/markdown', key, { url: pages.url(target), effort: 'min', nocache: true });
    expect(answer.status).toBe(status);
    const { balance, entries } = await settled(org, answer.workflowId!);
    expect({ balance, entries: kinds(entries) }).toEqual(
      refunded
        ? {
            balance: 10,
            entries: [
              ['charge', -10],
              ['refund', 10],
            ],
          }
        : { balance: 0, entries: [['charge', -10]] },
    );
  });

  it('Extract JSON of a page too large to read (the caller’s: kept)', async () => {
    const { org, key } = await newOrganization('large', 50);
    const answer = await post('/extract/json', key, { url: pages.url('/huge'), json_schema: SCHEMA, effort: 'min' });
    expect({ status: answer.status, error: answer.error }).toEqual({ status: 500, error: 'web page is too large' });
    const { balance, entries } = await settled(org, answer.workflowId!);
    expect({ balance, entries: kinds(entries) }).toEqual({ balance: 0, entries: [['charge', -50]] });
  });

  it('Extract Markdown of a page too large to convert (the caller’s: kept, as for Extract JSON)', async () => {
    const { org, key } = await newOrganization('large', 10);
    const answer = await post('/extract/markdown', key, { url: pages.url('/nodes'), effort: 'min', nocache: true });
    // The spec has one message for a page Extract Markdown cannot convert, whoever is at fault.
    expect({ status: answer.status, error: answer.error }).toEqual({
      status: 500,
      error: 'failed to convert HTML to Markdown',
    });
    const { balance, entries } = await settled(org, answer.workflowId!);
    expect({ balance, entries: kinds(entries) }).toEqual({ balance: 0, entries: [['charge', -10]] });
  });

  it.each<[string, FormatReply]>([
    ['a model outage: 503 on every attempt until the retries are spent', { status: 503, message: 'overloaded' }],
    ['a model that answers garbage on every repair', { content: 'not JSON at all' }],
  ])(
    'Extract JSON through %s is refunded',
    async (_, reply) => {
      const { org, key } = await newOrganization('model', 50);
      await scriptModel({ answer: [{ ...reply, keep: true }] });
      const answer = await post('/extract/json', key, {
        url: pages.url('/product'),
        json_schema: SCHEMA,
        effort: 'min',
      });
      expect({ status: answer.status, error: answer.error }).toEqual({ status: 500, error: 'failed to generate JSON' });
      const { balance, entries } = await settled(org, answer.workflowId!);
      expect({ balance, entries: kinds(entries) }).toEqual({
        balance: 50,
        entries: [
          ['charge', -50],
          ['refund', 50],
        ],
      });
    },
    120_000,
  );

  it('Research through a search outage (every search fails) is refunded', async () => {
    const { org, key } = await newOrganization('search', 250);
    await scriptModel(volcanoScript());
    stack.search.failNext(1_000_000, 500);
    try {
      const stream = await SseStream.open(`${stack.base}/research`, {
        key,
        method: 'POST',
        body: { query: 'How volcanic is Iceland?', nocache: true },
      });
      await stream.finished;
      const error = stream.events.find((event) => event.event === 'error');
      expect(JSON.parse(error?.data ?? '{}')).toMatchObject({ error: { name: 'search_failed' } });
      const workflowId = stream.response.headers.get('x-workflow-id')!;
      const { balance, entries } = await settled(org, workflowId);
      expect({ balance, entries: kinds(entries) }).toEqual({
        balance: 250,
        entries: [
          ['charge', -250],
          ['refund', 250],
        ],
      });
    } finally {
      stack.search.failNext(0, 500);
    }
  }, 120_000);
});

describe('a run an operator ended', () => {
  it.each([
    ['terminated: refunded', true],
    ['cancelled: kept', false],
  ])(
    'Research %s',
    async (how, refunded) => {
      const { org, key } = await newOrganization('ended', 250);
      // The plan comes late, so the run is still going when it is ended.
      await scriptModel(volcanoScript({ research_plan: [{ content: '{}', delayMs: 10_000 }] }));
      const stream = await SseStream.open(`${stack.base}/research`, {
        key,
        method: 'POST',
        body: { query: 'How volcanic is Iceland?', nocache: true },
      });
      const workflowId = stream.response.headers.get('x-workflow-id')!;
      await stream.until((s) => s.events.some((event) => event.event === 'planning:start'), 30_000);
      const handle = temporal.workflow.getHandle(workflowId);
      if (how.startsWith('terminated')) await handle.terminate('ended by an operator');
      else await handle.cancel();
      await stream.finished;
      const { balance, entries } = await settled(org, workflowId);
      expect({ balance, entries: kinds(entries) }).toEqual(
        refunded
          ? {
              balance: 250,
              entries: [
                ['charge', -250],
                ['refund', 250],
              ],
            }
          : { balance: 0, entries: [['charge', -250]] },
      );
    },
    60_000,
  );
});

describe('a run its caller left', () => {
  it('Research whose client left its stream and never came back (stream_abandoned) is kept', async () => {
    const { org, key } = await newOrganization('left', 250);
    // The plan comes late, so the run is still going when its client leaves.
    await scriptModel(volcanoScript({ research_plan: [{ content: '{}', delayMs: 10_000 }] }));
    const stream = await SseStream.open(`${stack.base}/research`, {
      key,
      method: 'POST',
      body: { query: 'How volcanic is Iceland?', nocache: true },
    });
    const workflowId = stream.response.headers.get('x-workflow-id')!;
    await stream.until((s) => s.events.some((event) => event.event === 'planning:start'), 30_000);
    stream.abort();
    const { balance, entries } = await settled(org, workflowId);
    expect({ balance, entries: kinds(entries) }).toEqual({ balance: 0, entries: [['charge', -250]] });
    expect((await temporal.workflow.getHandle(workflowId).describe()).status.name).toBe('FAILED');
  }, 60_000);
});

describe('a run that never started', () => {
  it('is refunded by the sweep once a minute past its deadline', async () => {
    const { org } = await newOrganization('unstarted', 10);
    // An API that died between charging a request and starting its run leaves this behind: a
    // charge for a workflow id Temporal never saw, whose deadline (175 s for Extract Markdown)
    // has passed by more than the sweep's minute of grace.
    const workflowId = `${org}/extract-markdown/${ulid()}`;
    const store = await Store.open(stackEnv().DATABASE_URL!);
    try {
      expect(
        await store.charge({
          organization: org,
          runKey: workflowId,
          operation: 'extract-markdown',
          amount: 10,
          expiresAt: new Date(Date.now() - 61_000),
        }),
      ).toBe('charged');
    } finally {
      await store.close();
    }
    const { balance, entries } = await settled(org, workflowId);
    expect({ balance, entries: kinds(entries) }).toEqual({
      balance: 10,
      entries: [
        ['charge', -10],
        ['refund', 10],
      ],
    });
    expect(entries[1]!.note).toBe('refunded: the run never started');
  });
});
