import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Tabstack, {
  AuthenticationError,
  BadRequestError,
  InternalServerError,
  UnprocessableEntityError,
} from '@tabstack/sdk';
import type { ExtractMarkdownResponse } from '@tabstack/sdk/resources/extract';
import type { ResearchEvent } from '@tabstack/sdk/resources/agent';
import { apiKey, apiUrl } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { StandInScript } from '../support/modelStandIn';
import { CLIENT_SCRIPT, pythonWithClient } from '../support/pythonClient';
import { FAST_EVENTS, scriptModel, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { sdkEventChecker } from '../support/sdkEventSchemas';
import { NO_SEARCH_ENGINE, startSecondApi, stackEnv } from '../support/secondApi';

/**
 * The official clients pointed at this server, as their users would: @tabstack/sdk (npm) for
 * every operation the server has, answered and refused, read through the client's own types and
 * errors; and tabstack (PyPI) for Extract Markdown, a refusal and Research. Research runs on a
 * stack with a search engine (test/support/researchStack.ts). Automate's agent.automate and
 * agent.automateInput run in test/e2e/automate.test.ts, beside the shop fixture site they need.
 */
const PAGE = `<!doctype html><html><head><title>Harbour Lamp</title>
<meta property="og:description" content="A brass lamp."></head>
<body><main><h1>Harbour Lamp</h1><p>A brass oil lamp made by hand in the harbour workshop, from solid brass and glass.</p>
<p>It burns lamp oil for twelve hours.</p></main></body></html>`;

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

let fixtures: FixtureServer;
let research: ResearchStack;
const check = sdkEventChecker();

/** No retries: the client retries 5xx twice by default, which would only slow the refusals down. */
const client = (baseURL = apiUrl(), key = apiKey()) => new Tabstack({ apiKey: key, baseURL, maxRetries: 0 });

async function refusal(call: Promise<unknown>): Promise<unknown> {
  try {
    await call;
  } catch (err) {
    return err;
  }
  throw new Error('the call was not refused');
}

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/lamp': html(PAGE),
    '/missing': html('<h1>gone</h1>', 'text/html', 404),
  });
  research = await startResearchStack('client');
}, 120_000);

afterAll(async () => {
  await research?.close();
  await fixtures?.close();
});

describe('@tabstack/sdk', () => {
  it('extract.markdown: the Markdown with front matter, or the metadata apart', async () => {
    const url = fixtures.url('/lamp');
    const plain: ExtractMarkdownResponse = await client().extract.markdown({ url, effort: 'min' });
    expect(plain.url).toBe(url);
    expect(plain.content).toMatch(/^---\ntitle: Harbour Lamp\n/);
    expect(plain.metadata).toBeUndefined();
    const apart = await client().extract.markdown({ url, effort: 'min', metadata: true, nocache: true });
    expect(apart.metadata).toMatchObject({ title: 'Harbour Lamp', description: 'A brass lamp.' });
    // The page's headline stays, though it repeats the title the metadata also carries.
    expect(apart.content).toMatch(/^# Harbour Lamp\n\nA brass oil lamp/);
  });

  it('extract.json and generate.json: objects of the requested schema', async () => {
    const url = fixtures.url('/lamp');
    const script: StandInScript = { replies: [{ content: '{"name":"Harbour Lamp"}' }, { content: '{"name":"LAMP"}' }] };
    await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(script) });
    expect(await client().extract.json({ url, json_schema: SCHEMA, effort: 'min' })).toEqual({ name: 'Harbour Lamp' });
    expect(
      await client().generate.json({ url, json_schema: SCHEMA, instructions: 'Name it in capitals.', effort: 'min' }),
    ).toEqual({ name: 'LAMP' });
  });

  it('agent.research: a stream of the client event types, to the report', async () => {
    await scriptModel(volcanoScript());
    const stream = await client(research.base).agent.research({
      query: 'Roman aqueducts gradient Pont du Gard',
      mode: 'fast',
    });
    const seen: ResearchEvent[] = [];
    for await (const event of stream) seen.push(event);
    expect(seen.map((event) => event.event)).toEqual(FAST_EVENTS);
    for (const event of seen) if (event.event === 'writing:start') expect(event.data.maxAttempts).toBe(1);
    const last = seen.at(-1)!;
    if (last.event === 'complete') expectFastAnswer(last.data.report, last.data.metadata.citedPages ?? []);
    const misfits = seen.map((event) => ({ event: event.event, problems: check('research', event) }));
    expect(misfits.filter(({ problems }) => problems.length > 0)).toEqual([]);
  });

  it('raises the typed error of each refusal, with the spec message', async () => {
    const url = fixtures.url('/lamp');
    // The shared stack may have a search engine (the cluster's has one): this API has none.
    const unsearched = await startSecondApi('api without a search engine', { env: stackEnv(NO_SEARCH_ENGINE) });
    const cases: [() => Promise<unknown>, new (...args: never[]) => Error, number, string][] = [
      [() => client().extract.markdown({ url: '' }), BadRequestError, 400, 'url is required'],
      [
        () => client(apiUrl(), 'wrong-key-0123456789').extract.markdown({ url }),
        AuthenticationError,
        401,
        'invalid or missing API key',
      ],
      [
        () => client().extract.markdown({ url: 'http://169.254.169.254/' }),
        UnprocessableEntityError,
        422,
        'access to internal resources is not allowed',
      ],
      [
        () => client().extract.markdown({ url: fixtures.url('/missing'), effort: 'min' }),
        InternalServerError,
        500,
        'failed to fetch URL',
      ],
      [
        () => client().generate.json({ url, json_schema: SCHEMA, instructions: '' }),
        BadRequestError,
        400,
        'instructions are required',
      ],
      [
        () => client().extract.json({ url, json_schema: 7 }),
        BadRequestError,
        400,
        'json schema must be a valid object',
      ],
      [
        () => client(`${unsearched.root}/v1`).agent.research({ query: 'q' }),
        InternalServerError,
        503,
        'research service is not configured',
      ],
    ];
    try {
      for (const [call, type, status, error] of cases) {
        const err = (await refusal(call())) as { status: number; error: unknown };
        expect({ type: err instanceof type, status: err.status, body: err.error }).toEqual({
          type: true,
          status,
          body: { error },
        });
      }
    } finally {
      await unsearched.stop();
    }
  });
});

/** A `fast` report: prose without headings or a source list, each `[n]` the n-th cited page. */
function expectFastAnswer(report: string, cited: { id: string }[]): void {
  expect(report).not.toMatch(/^#/m);
  expect(report).not.toContain('Sources');
  const markers = [...new Set([...report.matchAll(/\[(\d+)\]/g)].map((match) => match[1]))];
  expect(markers.length).toBeGreaterThan(0);
  expect(markers).toEqual(cited.map((page) => page.id));
  expect(cited.map((page) => page.id)).toEqual(cited.map((_page, i) => String(i + 1)));
}

describe('tabstack (PyPI)', () => {
  it('reads Extract Markdown, a refusal and a Research stream in the client types', async () => {
    await scriptModel(volcanoScript());
    const python = pythonWithClient();
    const url = fixtures.url('/lamp');
    // Not spawnSync: the fixture pages and the search stand-in are served by this process, which must keep running.
    const run = await promisify(execFile)(python, [CLIENT_SCRIPT, url, research.base], {
      env: { ...process.env, TABSTACK_BASE_URL: apiUrl(), TABSTACK_API_KEY: apiKey() },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as {
      markdown: { url: string; title: string; content: string };
      bad_request: { status: number; body: unknown };
      research: { events: string[]; report: string; max_attempts: number[]; cited: string[] };
    };
    expect(result.markdown).toMatchObject({ url, title: 'Harbour Lamp' });
    expect(result.markdown.content).toMatch(/^# Harbour Lamp\n\nA brass oil lamp/);
    expect(result.bad_request).toEqual({ status: 400, body: { error: 'url is required' } });
    expect(result.research.events).toEqual(FAST_EVENTS);
    expect(result.research.max_attempts).toEqual([1]);
    expectFastAnswer(
      result.research.report,
      result.research.cited.map((id) => ({ id })),
    );
  }, 120_000);
});
