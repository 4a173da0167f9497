import http from 'node:http';
import fc from 'fast-check';
import { apiDocument } from '../../src/api/openapi/document';
import { ERRORS } from '../../src/errors';
import { apiKey, apiUrl, post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { tallied } from '../support/reliabilityVerdicts';
import { recordReliability } from '../support/reliabilityRecord';

/**
 * Every endpoint over real HTTP against requests made to break it (fast-check, a fixed seed;
 * `FUZZ_RUNS` asks for a longer run): bodies that are not JSON, JSON that is not an object,
 * nesting thousands deep, strings past the body limit, bytes that are not UTF-8, wrong content
 * types and encodings, ids of every shape in the path and in Last-Event-ID. Each answer is a status
 * the API description lists for that operation with a message the spec or the description gives,
 * and between the attempts the service goes on answering an ordinary request.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
const SEED = 20261127;

interface Exchange {
  status: number;
  body: string;
}

/** A request as bytes: headers and body as given, none added but the key and the length. */
function send(method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Exchange> {
  const target = new URL(`${apiUrl()}${path}`);
  return new Promise((resolve, reject) => {
    const request = http.request(
      target,
      { method, headers: { authorization: `Bearer ${apiKey()}`, ...headers }, timeout: 30_000 },
      (response) => {
        const chunks: Buffer[] = [];
        // A stream that opened (an id that exists) is not read on: its status is the answer.
        if (response.headers['content-type']?.startsWith('text/event-stream')) {
          response.destroy();
          return resolve({ status: response.statusCode!, body: '' });
        }
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode!, body: Buffer.concat(chunks).toString() }));
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const document = apiDocument();
const operations = Object.entries(document.paths).flatMap(([path, item]) =>
  Object.entries(item as Record<string, { operationId?: string; responses?: object }>)
    .filter(([, operation]) => typeof operation === 'object' && operation.operationId)
    .map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operationId: operation.operationId!,
      statuses: Object.keys(operation.responses ?? {}).map(Number),
    })),
);

interface Described {
  responses?: Record<string, { content?: { 'application/json'?: { examples?: Record<string, { value: unknown }> } } }>;
}

/** Every message an answer may carry: the spec's, and those the description lists in its examples. */
const MESSAGES = new Set([
  ...Object.values(ERRORS).map((error) => error.message),
  ...Object.values(document.paths).flatMap((item) =>
    Object.values(item as Record<string, Described>).flatMap((operation) =>
      Object.values(operation.responses ?? {}).flatMap((response) =>
        Object.values(response.content?.['application/json']?.examples ?? {}).map(
          (example) => (example.value as { error?: string }).error,
        ),
      ),
    ),
  ),
]);

/** A body as bytes, shown in a failure's report by how it was made rather than byte by byte. */
function made(label: string, bytes: Buffer): Buffer {
  return Object.assign(bytes, { [fc.toStringMethod]: () => `${label} (${bytes.length} bytes)` });
}

const bytes = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 200 }).map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 200 }).map((array) => Buffer.from(array)),
  fc.jsonValue({ maxDepth: 4 }).map((value) => Buffer.from(JSON.stringify(value))),
  fc
    .nat({ max: 20_000 })
    .map((depth) => made(`arrays ${depth} deep`, Buffer.from('['.repeat(depth) + ']'.repeat(depth)))),
  fc
    .nat({ max: 20_000 })
    .map((depth) => made(`objects ${depth} deep`, Buffer.from('{"a":'.repeat(depth) + '1' + '}'.repeat(depth)))),
  fc
    .integer({ min: 60_000, max: 80_000 })
    .map((length) => made(`a url of ${length} characters`, Buffer.from(`{"url":"${'a'.repeat(length)}"}`))),
  fc.constantFrom(
    Buffer.from('{"url": "https://example.com", "url": 5}'),
    Buffer.from('{"url": 1e999}'),
    Buffer.from('\ufeff{"url": "https://example.com"}'),
    Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x7d, 0x00]),
    Buffer.from('{"task": "\\ud800", "url": "\\udfff"}'),
    Buffer.from('{"__proto__": {"admin": true}, "constructor": {"prototype": {}}}'),
    Buffer.alloc(0),
  ),
);

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-16',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  'application/json; charset=unknown-8bit',
);
const contentEncoding = fc.constantFrom(undefined, undefined, 'gzip', 'br', 'deflate', 'identity, gzip', 'x-unknown');

const pathId = fc.oneof(
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 60 })
    .filter((id) => id !== '.' && id !== '..')
    .map((id) => encodeURIComponent(id)),
  // Not `.` or `..`, nor `%2e`: a client's URL parser takes those segments out before sending.
  fc.constantFrom(
    '..%2f..%2fetc%2fpasswd',
    '%00',
    'x'.repeat(5_000),
    'research-01JX%20',
    'automate-x',
    '%ZZ',
    '%2e%2e%2f',
  ),
);
const lastEventId = fc.oneof(
  fc.constant(undefined),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }).filter((id) => /^[\t\x20-\x7e]*$/.test(id)),
  fc.constantFrom('-1', '1e999', '9'.repeat(400), '0x10', '3.5'),
);

let pages: FixtureServer;

beforeAll(async () => {
  pages = await startFixtureServer({ '/ordinary': html('<h1>Ordinary</h1><p>An ordinary page, read as usual.</p>') });
});

afterAll(async () => {
  await pages?.close();
});

describe.each(operations.filter((operation) => operation.method === 'POST'))('$method $path', (operation) => {
  it('answers every malformed body with a listed status and message, and goes on serving', async () => {
    const row = { fault: 'malformed request', target: `${operation.method} ${operation.path}`, seed: SEED, runs: RUNS };
    await tallied('fuzz-e2e', row, (count) =>
      fc.assert(
        fc.asyncProperty(bytes, contentType, contentEncoding, pathId, async (body, type, encoding, id) => {
          const headers: Record<string, string> = {};
          if (type) headers['content-type'] = type;
          if (encoding) headers['content-encoding'] = encoding;
          const answer = await send('POST', operation.path.replace('{requestID}', id), headers, body);
          const message = answer.status >= 400 ? (JSON.parse(answer.body) as { error?: string }).error : undefined;
          const listed = operation.statuses.includes(answer.status) && (message === undefined || MESSAGES.has(message));
          count(listed ? String(answer.status) : `${answer.status} unlisted`);
          return listed || Promise.reject(new Error(`answered ${answer.status} ${answer.body.slice(0, 300)}`));
        }),
        { seed: SEED, numRuns: RUNS },
      ),
    );
    const ordinary = await post('/extract/markdown', { url: pages.url('/ordinary'), effort: 'min' });
    recordReliability('fuzz-e2e', [
      {
        fault: 'an ordinary request after the fuzzing',
        target: `${operation.method} ${operation.path}`,
        outcome: `Extract Markdown answered ${ordinary.status}`,
        ok: ordinary.status === 200,
      },
    ]);
    expect(ordinary.status).toBe(200);
  }, 300_000);
});

describe('GET /runs/{runId}/events', () => {
  const operation = operations.find((candidate) => candidate.operationId === 'runEvents')!;

  it('answers every id and Last-Event-ID with a listed status and message', async () => {
    const row = { fault: 'run id and Last-Event-ID', target: 'GET /runs/{runId}/events', seed: SEED, runs: RUNS * 2 };
    await tallied('fuzz-e2e', row, (count) =>
      fc.assert(
        fc.asyncProperty(pathId, lastEventId, async (id, last) => {
          const answer = await send('GET', `/runs/${id}/events`, last === undefined ? {} : { 'last-event-id': last });
          const message = answer.status >= 400 ? (JSON.parse(answer.body) as { error?: string }).error : undefined;
          const listed = operation.statuses.includes(answer.status) && (message === undefined || MESSAGES.has(message));
          count(listed ? String(answer.status) : `${answer.status} unlisted`);
          return listed || Promise.reject(new Error(`answered ${answer.status} ${answer.body.slice(0, 300)}`));
        }),
        { seed: SEED, numRuns: RUNS * 2 },
      ),
    );
  }, 300_000);
});
