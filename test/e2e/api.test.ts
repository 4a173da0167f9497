import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { apiKey, call, post, rawExchange, stackSetting } from '../support/api';

describe('API framework', () => {
  it('answers 401 without a bearer key', async () => {
    const res = await post('/extract/markdown', { url: 'https://example.com' }, null);
    expect(res.status).toBe(401);
    expect(typeof res.body.error).toBe('string');
  });

  it('answers 401 for an unknown key', async () => {
    const res = await post('/extract/markdown', { url: 'https://example.com' }, 'not-a-real-key-at-all');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: expect.any(String) });
  });

  it('answers 401 for a malformed Authorization header', async () => {
    const res = await call('POST', '/extract/markdown', {
      json: { url: 'https://example.com' },
      key: null,
      headers: { authorization: 'Basic abc' },
    });
    expect(res.status).toBe(401);
  });

  it('answers 404 for an unknown route and 405 for a wrong method', async () => {
    const missing = await post('/extract/nothing', { url: 'https://example.com' });
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'not found' });
    const wrongMethod = await call('GET', '/extract/markdown');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.body).toEqual({ error: 'method not allowed' });
  });

  it('echoes a request id for tracing', async () => {
    const res = await call('POST', '/extract/markdown', { json: {}, headers: { 'x-request-id': 'trace-me-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-me-123');
  });
});

describe('OPTIONS and cross-origin requests', () => {
  const preflight = (path: string, origin: string) =>
    call('OPTIONS', path, {
      key: null,
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' },
    });

  it('answers OPTIONS on a route with 204 and the methods it allows, without a key', async () => {
    const res = await call('OPTIONS', '/extract/markdown', { key: null });
    expect(res.status).toBe(204);
    expect(res.headers.get('allow')).toBe('POST, OPTIONS');
    expect(res.text).toBe('');
  });

  it('answers OPTIONS on an unknown path with 404', async () => {
    const res = await call('OPTIONS', '/extract/nothing', { key: null });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not found' });
  });

  it('grants no origin access to /v1 unless configured', async () => {
    const res = await preflight('/extract/markdown', 'https://elsewhere.example');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBeNull();
    const answer = await call('POST', '/extract/markdown', {
      json: {},
      headers: { origin: 'https://elsewhere.example' },
    });
    expect(answer.status).toBe(400);
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('slow clients', () => {
  const headersLimit = Number(stackSetting('HEADERS_TIMEOUT_MS'));
  const requestLimit = Number(stackSetting('REQUEST_RECEIVE_TIMEOUT_MS'));
  /** The limit, plus Node's check interval (one second), plus slack for a busy machine. */
  const answeredWithin = (limit: number) => limit + 1000 + 1500;
  let fixtures: FixtureServer;

  beforeAll(async () => {
    const text = '<p>Worth the wait. The answer came late, but the request had long arrived.</p>'.repeat(20);
    const slowPage = html(
      `<html><head><title>Slow</title></head><body><main><h1>Slow</h1>${text}</main></body></html>`,
    );
    fixtures = await startFixtureServer({
      '/slow': (req, res) => setTimeout(() => slowPage(req, res), requestLimit + 1500),
    });
  });

  afterAll(async () => {
    await fixtures.close();
  });

  it('answers 408 and closes a request whose body never arrives in full', async () => {
    const head = [
      'POST /v1/extract/markdown HTTP/1.1',
      'Host: localhost',
      `Authorization: Bearer ${apiKey()}`,
      'Content-Type: application/json',
      'Content-Length: 1000',
    ];
    const exchange = await rawExchange(`${head.join('\r\n')}\r\n\r\n{"url": "h`, answeredWithin(requestLimit) + 3000);
    expect(exchange.closed).toBe(true);
    expect(exchange.ms).toBeLessThan(answeredWithin(requestLimit));
    expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /);
    expect(JSON.parse(exchange.text.slice(exchange.text.indexOf('\r\n\r\n') + 4))).toEqual({
      error: 'request timed out: headers and body must arrive in time',
    });
  });

  it('answers 408 and closes a request whose headers never end', async () => {
    const exchange = await rawExchange(
      'POST /v1/extract/markdown HTTP/1.1\r\nHost: localhost\r\n',
      answeredWithin(headersLimit) + 3000,
    );
    expect(exchange.closed).toBe(true);
    expect(exchange.ms).toBeLessThan(answeredWithin(headersLimit));
    expect(exchange.text).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('lets an answer take longer than the receive limit once the request has arrived', async () => {
    const res = await post<{ content: string }>('/extract/markdown', { url: fixtures.url('/slow'), nocache: true });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Worth the wait.');
  });
});
