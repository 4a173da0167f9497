import { Readable } from 'node:stream';
import type { Context } from 'koa';
import { errorResponses } from '../../src/api/middleware/errorResponses';
import { jsonBody } from '../../src/api/middleware/jsonBody';
import { parseAutomateRequest, parseInputAnswer } from '../../src/api/routes/automate';
import { parseExtractMarkdown } from '../../src/api/routes/extractMarkdown';
import { parseResearchRequest } from '../../src/api/routes/research';
import { parseStructuredRequest } from '../../src/api/routes/structuredJson';
import type { ApiState } from '../../src/api/state';
import { AddressPolicy } from '../../src/net/addressPolicy';

/**
 * The refusals the spec lists for each operation's body (§7), as a client sees them: the body
 * reader or the JSON body middleware throws, and errorResponses maps the error to its status and
 * JSON answer. No stack is needed for these; the e2e tier keeps the refusals that need one
 * (internal addresses by name, pages that fail, runs that are gone).
 */

interface Answer {
  status: number;
  body: unknown;
}

/** What the API answers when `handle` runs as the route behind the error mapping. */
async function answer(handle: (ctx: Context & { state: ApiState }) => unknown, raw = '{}'): Promise<Answer> {
  const ctx = {
    method: 'POST',
    status: 404,
    body: undefined as unknown,
    state: {} as ApiState,
    req: Readable.from([Buffer.from(raw)]),
    get: (name: string) => (name === 'content-length' ? String(Buffer.byteLength(raw)) : ''),
    set: () => undefined,
  } as unknown as Context & { state: ApiState };
  await errorResponses()(ctx, async () => {
    await handle(ctx);
  });
  return { status: ctx.status, body: ctx.body };
}

/** A body read as the API reads it: within the test stack's 64 KiB limit, then by `read`. */
const sent = (raw: string, read: (body: Record<string, unknown>) => unknown = parseExtractMarkdown) =>
  answer((ctx) => jsonBody(65_536)(ctx, async () => read(ctx.state.body!)), raw);

const refusal = (read: (body: Record<string, unknown>) => unknown, body: unknown) => sent(JSON.stringify(body), read);

describe('any body', () => {
  it.each([
    ['not JSON', '{"url": '],
    ['JSON that is not an object', '["https://example.com"]'],
    ['empty', ''],
  ])('answers 400 invalid JSON request body for a body that is %s', async (_name, raw) => {
    expect(await sent(raw)).toEqual({ status: 400, body: { error: 'invalid JSON request body' } });
  });

  it('answers 413 for a body over the limit', async () => {
    const raw = JSON.stringify({ url: 'https://example.com', pad: 'x'.repeat(70_000) });
    expect(await sent(raw)).toEqual({ status: 413, body: { error: 'request body is too large' } });
  });
});

describe('Extract Markdown (§7.2)', () => {
  it('answers 400 url is required', async () => {
    for (const body of [{}, { url: '' }, { url: null }, { content: 'main' }])
      expect(await refusal(parseExtractMarkdown, body)).toEqual({ status: 400, body: { error: 'url is required' } });
  });

  it('names the field of a wrong type', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ url: 42 }, 'url must be a string'],
      [{ url: 'https://example.com', content: 'all' }, 'content must be one of: main, full'],
      [{ url: 'https://example.com', effort: 'high' }, 'effort must be one of: min, standard, max'],
      [{ url: 'https://example.com', metadata: 'yes' }, 'metadata must be a boolean'],
      [{ url: 'https://example.com', nocache: 1 }, 'nocache must be a boolean'],
      [{ url: 'https://example.com', geo_target: 'US' }, 'geo_target must be an object'],
      [
        { url: 'https://example.com', geo_target: { country: 'USA' } },
        'geo_target.country must be an ISO 3166-1 alpha-2 country code, such as US',
      ],
      [
        { url: 'https://example.com', geo_target: { country: 'QQ' } },
        'geo_target.country must be an ISO 3166-1 alpha-2 country code, such as US',
      ],
      [
        { url: 'https://example.com', geo_target: { country: 'GER' } },
        'geo_target.country must be an ISO 3166-1 alpha-2 country code, such as US',
      ],
    ];
    for (const [body, error] of cases) {
      const { status, body: answered } = await refusal(parseExtractMarkdown, body);
      expect({ body, status, answered }).toEqual({ body, status: 400, answered: { error } });
    }
  });

  it('answers 422 url is invalid for what is no fetchable URL', async () => {
    const policy = new AddressPolicy();
    for (const url of [
      'not a url',
      'ftp://example.com/file',
      'javascript:alert(1)',
      'http://',
      '//example.com/x',
      'http://user:pw@example.com/',
    ]) {
      const { status, body } = await answer(() => policy.parseUrl(parseExtractMarkdown({ url }).url));
      expect({ url, status, body }).toEqual({ url, status: 422, body: { error: 'url is invalid' } });
    }
  });
});

describe('Extract JSON (§7.3) and Generate JSON (§7.4)', () => {
  const SCHEMA = { type: 'object', properties: { name: { type: 'string' } } };
  const URL = 'https://shop.example/lamp';
  const extract = (body: Record<string, unknown>) => parseStructuredRequest(body, false);
  const generate = (body: Record<string, unknown>) => parseStructuredRequest(body, true);

  it('answers every refusal of a body Extract JSON reads exactly', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ json_schema: SCHEMA }, 'url is required'],
      [{ url: URL }, 'json schema is required'],
      [{ url: URL, json_schema: 'object' }, 'json schema must be a valid object'],
      [{ url: URL, json_schema: [SCHEMA] }, 'json schema must be a valid object'],
    ];
    for (const [body, error] of cases) {
      const { status, body: answered } = await refusal(extract, body);
      expect({ body, status, answered }).toEqual({ body, status: 400, answered: { error } });
    }
    const bad = await refusal(extract, { url: URL, json_schema: { type: 'objekt' } });
    expect(bad).toEqual({
      status: 400,
      body: {
        error: 'json schema must be a valid object',
        reason: expect.stringMatching(/^schema is invalid: data\/type must be equal to one of the allowed values/),
      },
    });
  });

  it('answers every refusal of a body Generate JSON reads exactly', async () => {
    const valid = { url: URL, json_schema: SCHEMA, instructions: 'Name it' };
    const cases: [Record<string, unknown>, string][] = [
      [{ instructions: undefined }, 'instructions are required'],
      [{ instructions: '' }, 'instructions are required'],
      [{ instructions: 'x'.repeat(20_001) }, 'instructions must be at most 20000 characters'],
      [{ json_schema: undefined }, 'json schema is required'],
      [{ json_schema: 3 }, 'json schema must be a valid object'],
      [{ url: undefined }, 'url is required'],
    ];
    for (const [changes, error] of cases) {
      const { status, body } = await refusal(generate, { ...valid, ...changes });
      expect({ changes: Object.keys(changes), status, body }).toEqual({
        changes: Object.keys(changes),
        status: 400,
        body: { error },
      });
    }
    // Characters are code points, as JSON Schema counts them: an emoji is one, though two UTF-16 units.
    for (const instructions of ['x'.repeat(20_000), 'x'.repeat(19_990) + '\u{1F600}'.repeat(10)])
      expect(generate({ ...valid, instructions }).instructions).toBe(instructions);
  });
});

describe('Research (§7.5)', () => {
  it('answers 400 with a clear message for a bad body', async () => {
    const cases: [unknown, string][] = [
      [{}, 'query is required'],
      [{ query: '   ' }, 'query is required'],
      [{ query: 42 }, 'query must be a string'],
      [{ query: 'x'.repeat(10_001) }, 'query must be at most 10000 characters'],
      [{ query: 'q', mode: 'deep' }, 'mode must be one of: fast, balanced'],
      [{ query: 'q', fetch_timeout: 0 }, 'fetch_timeout must be a positive number of seconds'],
      [{ query: 'q', fetch_timeout: '5' }, 'fetch_timeout must be a positive number of seconds'],
      [{ query: 'q', nocache: 'yes' }, 'nocache must be a boolean'],
    ];
    for (const [body, error] of cases) {
      const { status, body: answered } = await refusal(parseResearchRequest, body);
      expect({ body, status, answered }).toEqual({ body, status: 400, answered: { error } });
    }
  });
});

describe('Automate (§7.6) and its input answers (§7.7)', () => {
  it.each<[string, Record<string, unknown>, string | RegExp]>([
    ['no task', { url: 'https://example.com' }, 'task is required'],
    ['maxIterations 0', { task: 't', maxIterations: 0 }, 'maxIterations must be between 1 and 100'],
    ['maxIterations 101', { task: 't', maxIterations: 101 }, 'maxIterations must be between 1 and 100'],
    ['max_iterations 101', { task: 't', max_iterations: 101 }, 'maxIterations must be between 1 and 100'],
    ['maxValidationAttempts 11', { task: 't', maxValidationAttempts: 11 }, /maxValidationAttempts/],
    ['a URL that is no URL', { task: 't', url: 'not a url' }, 'invalid URL format'],
  ])('answers 400 for %s', async (_name, body, message) => {
    const { status, body: answered } = await refusal(parseAutomateRequest, body);
    expect(status).toBe(400);
    expect((answered as { error: string }).error).toMatch(message);
  });

  it('answers 400 to an input answer that is not JSON, or has no fields and does not cancel', async () => {
    const read = (body: Record<string, unknown>) => parseInputAnswer('request', body);
    for (const raw of ['{"fields": [', '{}', '{"cancelled": false}'])
      expect({ raw, status: (await sent(raw, read)).status }).toEqual({ raw, status: 400 });
  });
});
