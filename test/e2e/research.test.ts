import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import { createApp } from '../../src/api/app';
import { closeApiDeps, createApiDeps } from '../../src/api/deps';
import { loadConfig } from '../../src/config';
import type { ResearchEvents } from '../../src/events/research';
import { createLogger } from '../../src/telemetry/logger';
import { testDataConverter as dataConverter } from '../support/payloadKeys';
import { apiKey } from '../support/api';
import { startCanary } from '../support/canary';
import type { FixtureServer } from '../support/fixtureServer';
import { ELSEWHERE, loopbackSpellings, oneOfEachKind } from '../support/internalAddresses';
import { CORPUS, DISALLOWED_PATH, FAILING_PATH, SLOW_PATH } from '../support/researchCorpus';
import { FAST_EVENTS, PLAN, scriptModel as script, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { sdkEventChecker } from '../support/sdkEventSchemas';
import type { SearchStandIn } from '../support/searchStandIn';
import { SseStream, type SseMessage } from '../support/sseClient';
import { eventually } from '../support/eventually';
import { MAX_QUERY_URLS } from '../../src/research/modes';

/**
 * POST /v1/research end to end: its own API and worker processes (test/support/researchStack.ts)
 * with a SearXNG stand-in searching a corpus of 33 pages served on loopback, the shared Temporal
 * dev server, and the shared model stand-in scripted per test. The refusals for a missing search
 * engine or model come from an API in this process with those settings left out.
 */

let stack: ResearchStack;
let corpus: FixtureServer;
let search: SearchStandIn;
let base: string;
let env: NodeJS.ProcessEnv;
let connection: Connection;
let client: Client;
const check = sdkEventChecker();

interface RecordedRequest {
  messages: { content: string }[];
  response_format?: { json_schema?: { name?: string } };
}

async function modelRequests(): Promise<RecordedRequest[]> {
  return (await (await fetch(`${process.env.TEST_MODEL_URL}/__control/requests`)).json()) as RecordedRequest[];
}

beforeAll(async () => {
  stack = await startResearchStack('research');
  ({ corpus, search, base, env } = stack);
  connection = await Connection.connect({ address: env.TEMPORAL_ADDRESS! });
  client = new Client({ connection, namespace: env.TEMPORAL_NAMESPACE, dataConverter });
}, 120_000);

afterAll(async () => {
  await connection?.close();
  await stack?.close();
});

const json = (value: unknown): string => JSON.stringify(value);
const url = (pathname: string) => corpus.url(pathname);

function start(body: unknown, at = base): Promise<SseStream> {
  return SseStream.open(`${at}/research`, { key: apiKey(), method: 'POST', body });
}

function expectClientTypes(stream: SseStream): void {
  for (const message of stream.events) {
    expect({
      event: message.event,
      problems: check('research', { event: message.event!, data: JSON.parse(message.data!) }),
    }).toEqual({ event: message.event, problems: [] });
  }
}

/** `balanced` content with its first round: for tests of how pages are read, which its analyses show. */
const ONE_ROUND = {
  coverage_evaluation: [
    {
      content: json({
        coverage: 'Solid',
        assessments: [],
        gaps: '',
        shouldContinue: false,
        nextQueries: [],
        newQuestions: [],
      }),
      keep: true,
    },
  ],
};

const names = (messages: SseMessage[]) => messages.map((message) => message.event);
const payloads = <E extends keyof ResearchEvents>(stream: SseStream, event: E): ResearchEvents[E][] =>
  stream.events
    .filter((message) => message.event === event)
    .map((message) => JSON.parse(message.data!) as ResearchEvents[E]);

const ROUND = ['iteration:start', 'searching:start', 'searching:end', 'analyzing:start', 'analyzing:end'];
const EVALUATION = ['evaluating:start', 'evaluating:end', 'iteration:end'];
const ENDING = [
  'outlining:start',
  'outlining:end',
  'writing:start',
  'writing:end',
  'judging:start',
  'judging:end',
  'complete',
];

describe('POST /v1/research', () => {
  it('fast: streams the hosted ten events, each payload of the client types, to a prose answer citing only pages read', async () => {
    await script(volcanoScript());
    const stream = await start({ query: 'How do the volcanoes of Iceland erupt?' });
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(stream.response.headers.get('x-run-id')).toMatch(/^research-[0-9A-HJKMNP-TV-Z]{26}$/);
    await stream.finished;
    expect(names(stream.events)).toEqual(FAST_EVENTS);
    expectClientTypes(stream);
    expect(stream.events.map((event) => Number(event.id))).toEqual(stream.events.map((_e, i) => i + 1));

    const [end] = payloads(stream, 'iteration:end');
    expect(end).toMatchObject({ iteration: 1, isLast: true, stopReason: 'max_iterations' });
    expect(payloads(stream, 'writing:start')[0]).toMatchObject({ attempt: 1, maxAttempts: 1, isRevision: false });
    expect(payloads(stream, 'searching:start')[0]!.queries).toEqual(PLAN.queries);
    expect(search.queries.slice(-2).sort()).toEqual([...PLAN.queries].sort());
    const answers = (await modelRequests()).filter(
      (request) => request.response_format?.json_schema?.name === 'research_answer',
    );
    const read = new Set([...answers.at(-1)!.messages[1]!.content.matchAll(/^URL: (\S+)$/gm)].map((m) => m[1]));
    expect(read.size).toBeGreaterThanOrEqual(2);

    const complete = payloads(stream, 'complete')[0]!;
    const cited = complete.metadata.citedPages!;
    expect(cited.map((page) => page.id)).toEqual(['1', '2']);
    for (const page of cited) expect(read.has(page.url)).toBe(true);
    expect(complete.report).toBe(
      'Iceland lies on the Mid-Atlantic Ridge [1]. Lava comes in two kinds [2]. A claim from nowhere.',
    );
    expect(cited[0]!.claims).toEqual(['Iceland lies on the Mid-Atlantic Ridge.']);
    expect(complete.metadata).toMatchObject({
      mode: 'fast',
      prompt: 'How do the volcanoes of Iceland erupt?',
      researchQuestions: PLAN.questions,
      executedQueries: [PLAN.queries],
      totalPagesAnalyzed: read.size,
      judgments: [],
      metrics: { iterations: 1, searches: { searxng: 2 }, robotsBlocked: 0 },
    });
    expect(Object.keys(complete.metadata.metrics!.phases).sort()).toEqual(
      ['iteration', 'planning', 'prefetching', 'searching', 'writing'].sort(),
    );
    expect(complete.metadata.metrics!.tokens['stand-in-model']!.input).toBeGreaterThan(0);
  });

  it('balanced: searches again for the gaps, follows links, and stops once coverage suffices', async () => {
    const overview = url('/volcanoes/overview');
    await script(
      volcanoScript({
        page_analysis: [
          {
            when: `URL: ${overview}\n`,
            content: json({
              relevance: 'high',
              reliability: 'high',
              summary: 'Overview.',
              keyFacts: [],
              promisingLinks: [
                url('/volcanoes/eyjafjallajokull-2010'),
                url('/volcanoes/hekla'),
                'https://invented.example/',
              ],
            }),
            keep: true,
          },
          {
            content: json({
              relevance: 'medium',
              reliability: 'high',
              summary: 'A page.',
              keyFacts: [],
              promisingLinks: [],
            }),
            keep: true,
          },
        ],
        coverage_evaluation: [
          {
            content: json({
              coverage: 'Moderate',
              assessments: [],
              gaps: 'The Laki eruption',
              shouldContinue: true,
              nextQueries: ['Laki 1783 fissure'],
              newQuestions: [],
            }),
          },
          {
            content: json({
              coverage: 'Solid',
              assessments: [],
              gaps: '',
              shouldContinue: false,
              nextQueries: [],
              newQuestions: [],
            }),
          },
        ],
      }),
    );
    const stream = await start({ query: 'Volcanoes of Iceland: which eruptions mattered?', mode: 'balanced' });
    await stream.finished;
    const round = [...ROUND, 'following:start', 'following:end', ...EVALUATION];
    expect(names(stream.events)).toEqual(['start', 'planning:start', 'planning:end', ...round, ...round, ...ENDING]);
    expectClientTypes(stream);
    expect(payloads(stream, 'iteration:end').map((end) => [end.iteration, end.isLast, end.stopReason])).toEqual([
      [1, false, undefined],
      [2, true, 'coverage_sufficient'],
    ]);
    expect(payloads(stream, 'iteration:start')[1]!.queries).toEqual(['Laki 1783 fissure']);
    expect(payloads(stream, 'evaluating:end').map((end) => end.coverage)).toEqual(['Moderate', 'Solid']);
    const followed = payloads(stream, 'following:end')[0]!;
    const firstRound = new Set(payloads(stream, 'analyzing:end')[0]!.samples.map((sample) => sample.url));
    // Only links the page has, never one the model made up, and none already read.
    for (const sample of followed.samples) {
      expect(sample.urlSource).toBe('extracted-link');
      expect([url('/volcanoes/eyjafjallajokull-2010'), url('/volcanoes/hekla')]).toContain(sample.url);
      expect(firstRound.has(sample.url)).toBe(false);
    }
    const complete = payloads(stream, 'complete')[0]!;
    expect(complete.metadata.executedQueries).toEqual([PLAN.queries, ['Laki 1783 fissure']]);
    expect(complete.metadata.gapEvaluations).toHaveLength(2);
    expect(complete.metadata.urlSources!.extractedLinks).toBe(followed.followed);
  });

  it('reads the pages a query names first, plans with them, and analyzes them as the user gave them', async () => {
    await script(volcanoScript(ONE_ROUND));
    const named = url('/volcanoes/surtsey');
    const stream = await start({
      query: `What does ${named} say about new land, and ${url(FAILING_PATH)}?`,
      mode: 'balanced',
    });
    await stream.finished;
    expect(names(stream.events).slice(0, 5)).toEqual([
      'start',
      'prefetching:start',
      'prefetching:end',
      'planning:start',
      'planning:end',
    ]);
    expectClientTypes(stream);
    expect(payloads(stream, 'prefetching:start')[0]).toMatchObject({ urls: [named, url(FAILING_PATH)], urlCount: 2 });
    expect(payloads(stream, 'prefetching:end')[0]).toMatchObject({ fetched: 1, failed: 1 });
    expect(payloads(stream, 'planning:start')[0]!.hasPrefetchedContext).toBe(true);
    const plans = (await modelRequests()).filter(
      (request) => request.response_format?.json_schema?.name === 'research_plan',
    );
    expect(plans.at(-1)!.messages[1]!.content).toContain('Surtsey rose from the sea');
    const samples = payloads(stream, 'analyzing:end')[0]!.samples;
    expect(samples[0]).toMatchObject({ url: named, urlSource: 'user-input' });
    expect(payloads(stream, 'complete')[0]!.metadata.urlSources!.userProvided).toBe(1);
  });

  it('reads no internal address a query names, in any spelling: each fails, and nothing arrives', async () => {
    const canary = await startCanary();
    try {
      const targets = [
        ...oneOfEachKind(loopbackSpellings(canary.port)),
        ...ELSEWHERE.filter((spelling) => !/^[[\d]/.test(spelling)),
      ].map((spelling) => `http://${spelling}/`);
      for (let from = 0; from < targets.length; from += MAX_QUERY_URLS) {
        const named = targets.slice(from, from + MAX_QUERY_URLS);
        await script(volcanoScript());
        const stream = await start({ query: `How do volcanoes erupt? See ${named.join(' and ')} .`, mode: 'fast' });
        await stream.finished;
        expect(payloads(stream, 'prefetching:start')[0]).toMatchObject({ urls: named });
        expect(payloads(stream, 'prefetching:end')[0]).toMatchObject({ fetched: 0, failed: named.length });
      }
      expect(canary.arrivals()).toEqual([]);
    } finally {
      await canary.close();
    }
  });

  it('reads pages from the cache unless nocache, which fetches them again', async () => {
    await script(volcanoScript(ONE_ROUND));
    const query = 'Honeybees waggle dance queen';
    const first = await start({ query, mode: 'balanced', nocache: true });
    await first.finished;
    const read = payloads(first, 'analyzing:end')[0]!.samples.map((sample) => new URL(sample.url).pathname);
    expect(read.length).toBeGreaterThan(0);
    const hitsAfterFirst = read.map((pathname) => corpus.hits.get(pathname));

    const second = await start({ query, mode: 'balanced' });
    await second.finished;
    const metrics = payloads(second, 'complete')[0]!.metadata.metrics!;
    expect(metrics.cachedFetches).toBe(metrics.fetches);
    expect(read.map((pathname) => corpus.hits.get(pathname))).toEqual(hitsAfterFirst);

    const third = await start({ query, mode: 'balanced', nocache: true });
    await third.finished;
    expect(payloads(third, 'complete')[0]!.metadata.metrics!.cachedFetches).toBe(0);
    expect(read.map((pathname) => corpus.hits.get(pathname))).toEqual(hitsAfterFirst.map((hits) => hits! + 1));
  });

  it('counts a failing page and one slower than fetch_timeout as failed, and goes on', async () => {
    await script(
      volcanoScript({
        ...ONE_ROUND,
        research_plan: [
          {
            content: json({
              ...PLAN,
              queries: ['colony collapse disorder archive', 'monitoring stations seismometers'],
            }),
          },
        ],
      }),
    );
    const stream = await start({
      query: 'Bee colony collapse and volcano monitoring',
      mode: 'balanced',
      fetch_timeout: 1,
      nocache: true,
    });
    await stream.finished;
    const analyzed = payloads(stream, 'analyzing:end')[0]!;
    const urls = analyzed.samples.map((sample) => sample.url);
    expect(urls).not.toContain(url(FAILING_PATH));
    expect(urls).not.toContain(url(SLOW_PATH));
    expect(analyzed.failed).toBeGreaterThanOrEqual(2);
    expect(corpus.hits.get(FAILING_PATH)).toBeGreaterThanOrEqual(1);
    expect(names(stream.events).at(-1)).toBe('complete');
    const metrics = payloads(stream, 'complete')[0]!.metadata.metrics!;
    expect(metrics.successRates.fetches).toBeLessThan(1);
  }, 90_000);

  it('never fetches a page robots.txt disallows, and counts it', async () => {
    await script(
      volcanoScript({
        ...ONE_ROUND,
        research_plan: [{ content: json({ ...PLAN, queries: ['Pont du Gard survey notes private'] }) }],
      }),
    );
    const stream = await start({ query: 'Pont du Gard height', mode: 'balanced', nocache: true });
    await stream.finished;
    expect(search.queries.at(-1)).toBe('Pont du Gard survey notes private');
    const samples = payloads(stream, 'analyzing:end')[0]!.samples.map((sample) => sample.url);
    expect(samples.length).toBeGreaterThan(0);
    expect(samples).not.toContain(url(DISALLOWED_PATH));
    expect(corpus.hits.get(DISALLOWED_PATH)).toBeUndefined();
    expect(corpus.hits.get('/robots.txt')).toBeGreaterThanOrEqual(1);
    expect(payloads(stream, 'analyzing:start')[0]!.message).toMatch(/robots\.txt keeps research from 1/);
    expect(payloads(stream, 'complete')[0]!.metadata.metrics!.robotsBlocked).toBe(1);
  });

  it('ends with an error event, in the client types, when no page can be read', async () => {
    await script(volcanoScript({ research_plan: [{ content: json({ ...PLAN, queries: ['zzzz qqqq'] }) }] }));
    const stream = await start({ query: 'Nothing the corpus knows: xyzzy plugh' });
    await stream.finished;
    const last = stream.events.at(-1)!;
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data!)).toMatchObject({
      message: 'no web page could be read for this research',
      error: { name: 'no_sources', message: 'no web page could be read for this research' },
      activity: 'iteration',
    });
    expect(names(stream.events)).not.toContain('complete');
    expectClientTypes(stream);
  });

  it('goes on when the workflow worker dies mid-run: no finished analysis redone, every event delivered once', async () => {
    await script(
      volcanoScript({
        ...ONE_ROUND,
        research_plan: [
          { content: json({ ...PLAN, queries: ['monitoring stations seismometers', 'Iceland volcanoes eruption'] }) },
        ],
      }),
    );
    const slowHits = corpus.hits.get(SLOW_PATH) ?? 0;
    const stream = await start({
      query: 'How is volcanic unrest in Iceland watched?',
      mode: 'balanced',
      nocache: true,
    });
    // Killed while the slow page (SLOW_MS) is on its way: what the worker had recorded must not be done again.
    await eventually(() => (corpus.hits.get(SLOW_PATH) ?? 0) > slowHits, {
      what: 'the slow page to be asked for',
      timeoutMs: 60_000,
    });
    stack.workers.get('workflow,model')!.process.kill('SIGKILL');
    stack.spawnWorker('workflow,model');
    await stream.finished;
    expect(names(stream.events).at(-1)).toBe('complete');
    expect(stream.events.map((event) => Number(event.id))).toEqual(stream.events.map((_e, i) => i + 1));
    expectClientTypes(stream);
    const samples = payloads(stream, 'analyzing:end')[0]!.samples.map((sample) => sample.url);
    expect(samples).toContain(url(SLOW_PATH));
    const analyses = (await modelRequests()).filter(
      (request) => request.response_format?.json_schema?.name === 'page_analysis',
    );
    for (const sample of samples) {
      const asked = analyses.filter((request) =>
        request.messages.some((message) => message.content.includes(`URL: ${sample}\n`)),
      );
      expect({ sample, analyses: asked.length }).toEqual({ sample, analyses: 1 });
    }
  }, 120_000);

  it('fast goes on when the workflow worker dies mid-read: no page fetched again, every event delivered once', async () => {
    await script(
      volcanoScript({
        research_plan: [
          { content: json({ ...PLAN, queries: ['monitoring stations seismometers', 'Iceland volcanoes eruption'] }) },
        ],
      }),
    );
    const before = new Map(corpus.hits);
    const stream = await start({ query: 'How is volcanic unrest in Iceland watched, quickly?', nocache: true });
    await eventually(() => (corpus.hits.get(SLOW_PATH) ?? 0) > (before.get(SLOW_PATH) ?? 0), {
      what: 'the slow page to be asked for',
      timeoutMs: 60_000,
    });
    stack.workers.get('workflow,model')!.process.kill('SIGKILL');
    stack.spawnWorker('workflow,model');
    await stream.finished;
    expect(names(stream.events)).toEqual(FAST_EVENTS);
    expect(stream.events.map((event) => Number(event.id))).toEqual(stream.events.map((_e, i) => i + 1));
    expectClientTypes(stream);
    const answers = (await modelRequests()).filter(
      (request) => request.response_format?.json_schema?.name === 'research_answer',
    );
    const read = [...answers.at(-1)!.messages[1]!.content.matchAll(/^URL: (\S+)$/gm)].map(
      (m) => new URL(m[1]!).pathname,
    );
    expect(read).toContain(SLOW_PATH);
    for (const pathname of read)
      expect({ pathname, fetches: corpus.hits.get(pathname)! - (before.get(pathname) ?? 0) }).toEqual({
        pathname,
        fetches: 1,
      });
  }, 120_000);

  it('resumes with Last-Event-ID after a dropped connection, each event once, through to complete', async () => {
    await script(volcanoScript());
    const first = await start({ query: 'Lava types pahoehoe aa', mode: 'balanced' });
    const runId = first.response.headers.get('x-run-id')!;
    await first.until((s) => s.events.length >= 4);
    first.abort();
    const lastId = Number(first.events.at(-1)!.id);
    const second = await SseStream.open(`${base}/runs/${runId}/events`, { key: apiKey(), lastEventId: lastId });
    await second.finished;
    const ids = second.events.map((event) => Number(event.id));
    expect(ids[0]).toBe(lastId + 1);
    expect(ids).toEqual(ids.map((_id, i) => lastId + 1 + i));
    expect(second.events.at(-1)!.event).toBe('complete');
    expectClientTypes(second);
  });
});

describe('refusals before any stream', () => {
  /**
   * Research's API in this process with `changes` to this stack's settings: a refusal before any
   * workflow needs no workers, and the shared stack's search engine (the cluster has one) is not
   * this test's to rely on.
   */
  async function refusal(changes: NodeJS.ProcessEnv, body: unknown): Promise<{ status: number; body: unknown }> {
    const logger = createLogger('warn', 'refusals');
    const deps = createApiDeps(loadConfig({ ...env, ...changes }), client, logger);
    const app = createApp(deps, logger);
    const server: Server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const response = await fetch(`http://127.0.0.1:${port}/v1/research`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    } finally {
      server.closeAllConnections();
      server.close();
      await closeApiDeps(deps);
    }
  }
  const NOT_CONFIGURED = { status: 503, body: { error: 'research service is not configured' } };
  const NO_SEARCH_ENGINE = { SEARXNG_URL: '', BRAVE_SEARCH_API_KEY: '', SEARCH_ENGINE: '' };

  it('answers 503 when no search engine is configured', async () => {
    expect(await refusal(NO_SEARCH_ENGINE, { query: 'Volcanoes of Iceland' })).toEqual(NOT_CONFIGURED);
  });

  it('counts the characters of a query as code points, as JSON Schema does', async () => {
    const query = 'x'.repeat(9_990) + '\u{1F600}'.repeat(10);
    expect(await refusal(NO_SEARCH_ENGINE, { query })).toEqual(NOT_CONFIGURED);
  });

  it('answers 503 when no model is configured', async () => {
    expect(await refusal({ OPENAI_MODEL: '' }, { query: 'Volcanoes of Iceland' })).toEqual(NOT_CONFIGURED);
  });
});

it('has a corpus of at least 30 linked pages on a few topics', () => {
  expect(CORPUS.length).toBeGreaterThanOrEqual(30);
  expect(new Set(CORPUS.map((page) => page.topic)).size).toBe(3);
  for (const page of CORPUS) expect(page.links.length).toBeGreaterThan(0);
});
