import { Validator } from '@seriousme/openapi-schema-validator';
import type { ApiDocument } from '../../src/api/openapi/document';
import { agentDecision, type AgentStep } from '../support/agentScript';
import { apiKey, apiUrl } from '../support/api';
import { SseStream } from '../support/sseClient';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { readAnswer, ResponseChecker, type Answer } from '../support/openApiResponses';
import { scriptModel, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import { NO_SEARCH_ENGINE, startSecondApi, stackEnv } from '../support/secondApi';

/**
 * GET /v1/openapi.json on the real stack, and the API held to it: the document is a valid
 * OpenAPI 3.1 description, and real requests to every operation it offers, answered and refused,
 * get a status, a content type and a body (every event of a stream) that it describes. Research
 * runs on a stack with a search engine (test/support/researchStack.ts), and is refused by an API
 * started without one.
 */

const PAGE = `<!doctype html><html><head><title>Harbour Lamp</title>
<meta property="og:description" content="A brass lamp."><meta property="og:type" content="product"></head>
<body><main><h1>Harbour Lamp</h1><p>A brass oil lamp made by hand in the harbour workshop, from solid brass and glass.</p>
<p>It burns lamp oil for twelve hours.</p></main></body></html>`;

const FORM = `<!doctype html><html><head><title>Order</title></head><body><h1>Order</h1>
<form method="post" action="/order"><label>Name <input name="name" required></label><button>Send</button></form></body></html>`;

/** An agent step the model stand-in answers with, every time it is asked. */
const step = (fields: AgentStep) => ({ keep: true, content: agentDecision(fields) });

const SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

let fixtures: FixtureServer;
let research: ResearchStack;
let served: ApiDocument;
let checker: ResponseChecker;

interface Request {
  method?: string;
  body?: unknown;
  raw?: string;
  key?: string | null;
  headers?: Record<string, string>;
  /** Another base URL than the shared stack's. */
  base?: string;
}

async function request(path: string, options: Request = {}): Promise<{ response: Response; answer: Answer }> {
  const headers: Record<string, string> = { ...options.headers };
  const key = options.key === undefined ? apiKey() : options.key;
  if (key !== null) headers.authorization = `Bearer ${key}`;
  if (options.body !== undefined || options.raw !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${options.base ?? apiUrl()}${path}`, {
    method: options.method ?? (options.body !== undefined || options.raw !== undefined ? 'POST' : 'GET'),
    headers,
    body: options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body)),
  });
  return { response, answer: await readAnswer(response) };
}

/** Sends the request, checks the answer against the description, and returns it. */
async function described(
  method: string,
  template: string,
  path: string,
  status: number,
  options: Request = {},
): Promise<{ response: Response; answer: Answer }> {
  const exchange = await request(path, { ...options, method: method.toUpperCase() });
  expect({ status: exchange.answer.status, problems: checker.check(method, template, exchange.answer) }).toEqual({
    status,
    problems: [],
  });
  return exchange;
}

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/lamp': html(PAGE),
    '/missing': html('<h1>gone</h1>', 'text/html', 404),
    '/form': html(FORM),
  });
  research = await startResearchStack('openapi');
  const response = await fetch(`${apiUrl()}/openapi.json`);
  served = (await response.json()) as ApiDocument;
  checker = new ResponseChecker(served);
}, 120_000);

afterAll(async () => {
  await research?.close();
  await fixtures?.close();
});

describe('GET /v1/openapi.json', () => {
  it('is a valid OpenAPI 3.1 document, served without a key', async () => {
    expect(await new Validator().validate(structuredClone(served))).toEqual({ valid: true });
    await described('get', '/openapi.json', '/openapi.json', 200, { key: null });
    await described('get', '/openapi.json', '/openapi.json', 200);
  });

  it('offers exactly the operations this server routes', () => {
    const operations = Object.entries(served.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => ['get', 'post'].includes(key))
        .map((method) => `${method} ${path}`),
    );
    expect(operations.sort()).toEqual([
      'get /healthz',
      'get /openapi.json',
      'get /runs/{runId}/events',
      'post /automate',
      'post /automate/{requestID}/input',
      'post /extract/json',
      'post /extract/markdown',
      'post /generate/json',
      'post /research',
    ]);
  });

  it('describes /healthz at the root, outside the versioned API', async () => {
    await described('get', '/healthz', '/healthz', 200, { key: null, base: new URL(apiUrl()).origin });
  });
});

describe('POST /extract/markdown', () => {
  const url = () => fixtures.url('/lamp');

  it('answers as described, with the metadata in the content or apart', async () => {
    await described('post', '/extract/markdown', '/extract/markdown', 200, { body: { url: url(), effort: 'min' } });
    const { answer } = await described('post', '/extract/markdown', '/extract/markdown', 200, {
      body: { url: url(), effort: 'min', metadata: true, nocache: true, content: 'full', geo_target: null },
    });
    expect((answer.body as { metadata: object }).metadata).toMatchObject({ title: 'Harbour Lamp' });
  });

  it('refuses as described', async () => {
    const cases: [number, Request, string?][] = [
      [400, { body: {} }, 'url is required'],
      [400, { raw: '{"url":' }, 'invalid JSON request body'],
      [400, { body: { url: url(), effort: 'fastest' } }, 'effort must be one of: min, standard, max'],
      [400, { body: { url: url(), geo_target: { country: 'FR' } } }],
      [401, { body: { url: url() }, key: null }, 'invalid or missing API key'],
      [413, { body: { url: url(), pad: 'x'.repeat(70_000) } }],
      [422, { body: { url: 'http://127.0.0.1:9/' } }, 'access to internal resources is not allowed'],
      [422, { body: { url: 'not a url' } }, 'url is invalid'],
      [500, { body: { url: fixtures.url('/missing'), effort: 'min' } }, 'failed to fetch URL'],
    ];
    for (const [status, options, error] of cases) {
      const { answer } = await described('post', '/extract/markdown', '/extract/markdown', status, options);
      if (error) expect(answer.body).toEqual({ error });
    }
  });
});

describe('POST /extract/json and /generate/json', () => {
  it('answer as described', async () => {
    await scriptModel({});
    const body = { url: fixtures.url('/lamp'), json_schema: SCHEMA, effort: 'min' };
    const extracted = await described('post', '/extract/json', '/extract/json', 200, { body });
    expect(extracted.answer.body).toEqual({ name: expect.any(String) });
    const generated = await described('post', '/generate/json', '/generate/json', 200, {
      body: { ...body, instructions: 'Name the lamp.' },
    });
    expect(generated.answer.body).toEqual({ name: expect.any(String) });
  });

  it('refuse as described', async () => {
    const url = fixtures.url('/lamp');
    const cases: [string, number, Request, string][] = [
      ['/extract/json', 400, { body: { url } }, 'json schema is required'],
      ['/extract/json', 400, { body: { url, json_schema: [] } }, 'json schema must be a valid object'],
      [
        '/extract/json',
        401,
        { body: { url, json_schema: SCHEMA }, key: 'wrong-key-0123456789' },
        'invalid or missing API key',
      ],
      [
        '/extract/json',
        422,
        { body: { url: 'http://10.0.0.1/', json_schema: SCHEMA } },
        'access to internal resources is not allowed',
      ],
      ['/generate/json', 400, { body: { url, json_schema: SCHEMA } }, 'instructions are required'],
      [
        '/generate/json',
        400,
        { body: { url, json_schema: SCHEMA, instructions: 'x'.repeat(20_001) } },
        'instructions must be at most 20000 characters',
      ],
      [
        '/generate/json',
        500,
        { body: { url: fixtures.url('/missing'), json_schema: SCHEMA, instructions: 'Name it.', effort: 'min' } },
        'failed to fetch URL',
      ],
    ];
    for (const [path, status, options, error] of cases) {
      const { answer } = await described('post', path, path, status, options);
      expect(answer.body).toEqual({ error });
    }
  });
});

describe('POST /research and GET /runs/{runId}/events', () => {
  it('stream events as described, and again from any id', async () => {
    await scriptModel(volcanoScript());
    const { response, answer } = await described('post', '/research', '/research', 200, {
      base: research.base,
      body: { query: 'How do the volcanoes of Iceland erupt?', mode: 'fast', fetch_timeout: 10, nocache: true },
    });
    const events = answer.body as { event: string }[];
    expect(events.at(-1)!.event).toBe('complete');
    const runId = response.headers.get('x-run-id')!;
    const again = await described('get', '/runs/{runId}/events', `/runs/${runId}/events`, 200, {
      base: research.base,
      headers: { 'last-event-id': '3' },
    });
    expect((again.answer.body as unknown[]).length).toBe(events.length - 3);
  });

  it('refuse as described', async () => {
    // The shared stack may have a search engine (the cluster's has one): this API has none.
    const unsearched = await startSecondApi('openapi api without a search engine', {
      env: stackEnv(NO_SEARCH_ENGINE),
    });
    const cases: [string, string, string, number, Request, string][] = [
      ['post', '/research', '/research', 400, { body: { query: ' ' } }, 'query is required'],
      [
        'post',
        '/research',
        '/research',
        400,
        { body: { query: 'q', mode: 'deep' } },
        'mode must be one of: fast, balanced',
      ],
      ['post', '/research', '/research', 401, { body: { query: 'q' }, key: null }, 'invalid or missing API key'],
      [
        'post',
        '/research',
        '/research',
        503,
        { body: { query: 'q' }, base: `${unsearched.root}/v1` },
        'research service is not configured',
      ],
      ['get', '/runs/{runId}/events', '/runs/research-01JC0000000000000000000000/events', 404, {}, 'not found'],
      ['get', '/runs/{runId}/events', '/runs/anything/events', 404, {}, 'not found'],
      ['get', '/runs/{runId}/events', '/runs/anything/events', 401, { key: null }, 'invalid or missing API key'],
      [
        'get',
        '/runs/{runId}/events',
        '/runs/research-01JC0000000000000000000000/events',
        400,
        { headers: { 'last-event-id': 'last' } },
        'Last-Event-ID must be the id of an event of this stream',
      ],
    ];
    try {
      for (const [method, template, path, status, options, error] of cases) {
        const { answer } = await described(method, template, path, status, options);
        expect(answer.body).toEqual({ error });
      }
    } finally {
      await unsearched.stop();
    }
  });
});

describe('POST /automate and /automate/{requestID}/input', () => {
  it('stream events as described, and take an answer as described', async () => {
    await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, {
      method: 'POST',
      body: JSON.stringify({
        replies: [],
        byFormat: {
          automate_action: [
            { ...step({ action: 'request_input', ref: '{{ref:textbox "Name"}}', text: 'Who orders' }), keep: false },
            step({ action: 'done', text: 'Asked' }),
          ],
          automate_validation: [
            { keep: true, content: JSON.stringify({ completionQuality: 'complete', observation: 'o', feedback: '' }) },
          ],
        },
      }),
    });
    const stream = await SseStream.open(`${apiUrl()}/automate`, {
      key: apiKey(),
      method: 'POST',
      body: { task: 'Order the lamp', url: fixtures.url('/form'), interactive: true, maxIterations: 4 },
    });
    await stream.until((s) => s.events.some((m) => m.event === 'interactive:form_data:request'), 60_000);
    const request = stream.events.find((m) => m.event === 'interactive:form_data:request')!;
    const { requestId, fields } = JSON.parse(request.data!) as { requestId: string; fields: { ref: string }[] };
    const template = '/automate/{requestID}/input';
    const answer = { fields: [{ ref: fields[0]!.ref, value: 'Ana' }] };
    await described('post', template, `/automate/${requestId}/input`, 202, { body: answer });
    await described('post', template, `/automate/${requestId}/input`, 410, { body: answer });
    await stream.until((s) => s.events.some((m) => m.event === 'done'), 60_000);
    const events = stream.events.map((m) => ({
      id: m.id,
      event: m.event,
      data: JSON.parse(m.data ?? 'null') as unknown,
    }));
    const answered = { status: 200, contentType: stream.response.headers.get('content-type') ?? '', body: events };
    expect(checker.check('post', '/automate', answered)).toEqual([]);
  });

  it('refuse as described', async () => {
    const input = '/automate/{requestID}/input';
    const cases: [string, string, number, Request, string][] = [
      ['/automate', '/automate', 400, { body: { url: 'https://example.com' } }, 'task is required'],
      [
        '/automate',
        '/automate',
        400,
        { body: { task: 't', maxIterations: 0 } },
        'maxIterations must be between 1 and 100',
      ],
      [
        '/automate',
        '/automate',
        400,
        { body: { task: 't', maxValidationAttempts: 11 } },
        'maxValidationAttempts must be between 1 and 10',
      ],
      ['/automate', '/automate', 400, { body: { task: 't', url: 'not a url' } }, 'invalid URL format'],
      [
        '/automate',
        '/automate',
        422,
        { body: { task: 't', url: 'http://127.0.0.1:9/' } },
        'access to internal resources is not allowed',
      ],
      ['/automate', '/automate', 401, { body: { task: 't' }, key: null }, 'invalid or missing API key'],
      [input, '/automate/x/input', 400, { body: {} }, 'fields are required unless cancelled is true'],
      [
        input,
        '/automate/x/input',
        410,
        { body: { cancelled: true } },
        'the input request is expired, already answered or unknown',
      ],
    ];
    for (const [template, path, status, options, error] of cases) {
      const { answer } = await described('post', template, path, status, options);
      expect(answer.body).toEqual({ error });
    }
  });
});

describe('coverage', () => {
  it('has checked an answer of every operation offered, and a refusal of each', () => {
    const checked = [...checker.checked];
    for (const [path, item] of Object.entries(served.paths)) {
      for (const method of Object.keys(item).filter((key) => ['get', 'post'].includes(key))) {
        const statuses = checked
          .filter((entry) => entry.startsWith(`${method} ${path} `))
          .map((entry) => Number(entry.split(' ')[2]));
        expect({ operation: `${method} ${path}`, answered: statuses.some((status) => status < 300) }).toEqual({
          operation: `${method} ${path}`,
          answered: true,
        });
        if (!['/openapi.json', '/healthz'].includes(path))
          expect({ operation: `${method} ${path}`, refused: statuses.some((status) => status >= 400) }).toEqual({
            operation: `${method} ${path}`,
            refused: true,
          });
      }
    }
  });
});
