import { Writable } from 'node:stream';
import type { ParameterizedContext } from 'koa';
import pino from 'pino';
import { requestLog } from '../../src/api/middleware/requestLog';
import type { ApiState } from '../../src/api/state';

const SECRET = 'wl_codec_Zq8sEcReT';

/** The request log line written for a request to `path`, as the API's logger writes it. */
async function logLineFor(path: string): Promise<string> {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  const middleware = requestLog(pino({}, sink));
  const ctx = {
    method: 'POST',
    // Koa's ctx.path leaves the query out.
    path: path.split('?')[0],
    status: 401,
    state: {},
    get: () => '',
    set: () => undefined,
  } as unknown as ParameterizedContext<ApiState>;
  await middleware(ctx as never, async () => undefined);
  return lines.join('');
}

describe('the request log', () => {
  it.each([
    `/codec/${SECRET}/decode`,
    `/codec/${SECRET}//decode`,
    `/codec//${SECRET}/decode`,
    `//codec/${SECRET}/decode`,
    `/codec/${SECRET}/`,
    `/codec/${SECRET}`,
    `/codec/${SECRET}/decode/`,
    `/codec/${SECRET}/more/decode`,
    `/CODEC/${SECRET}/Decode`,
    `/Codec/${SECRET.toUpperCase()}/encode`,
    `/%63odec/${SECRET}/decode`,
    `/codec%2F${SECRET}%2Fdecode`,
    `/codec%2f${encodeURIComponent(SECRET).replace(/c/g, '%63')}/decode`,
    `/codec/${SECRET.replace(/_/g, '%5F')}/decode`,
    `/codec%252F${SECRET}/decode`,
    `/codec/${SECRET}/decode?token=${SECRET}&next=/a/b`,
    `/codec/${SECRET}/%ZZ`,
  ])('leaves the codec secret out of %s', async (path) => {
    const line = await logLineFor(path);
    expect(line).toContain('"path":"/codec');
    expect(line.toLowerCase()).not.toContain(SECRET.toLowerCase());
    expect(line.toLowerCase()).not.toContain('zq8secret');
  });

  it('keeps the codec path that carries no secret, and every other path, as it was', async () => {
    expect(await logLineFor('/codec/decode')).toContain('"path":"/codec/decode"');
    expect(await logLineFor(`/codec/${SECRET}/decode`)).toContain('"path":"/codec/:secret/decode"');
    expect(await logLineFor('/v1/extract/markdown')).toContain('"path":"/v1/extract/markdown"');
    expect(await logLineFor('/v1/runs/abc/events')).toContain('"path":"/v1/runs/abc/events"');
  });
});

describe('the support id of an answer', () => {
  /** The response headers a request gets when the handler behind the log records `runId` (or none). */
  async function headersFor(runId?: string, incoming = ''): Promise<Record<string, string>> {
    const headers: Record<string, string> = {};
    const ctx = {
      method: 'POST',
      path: '/v1/extract/markdown',
      status: 200,
      headerSent: false,
      state: {},
      get: (name: string) => (name === 'x-request-id' ? incoming : ''),
      set: (name: string, value: string) => {
        headers[name] = value;
      },
    } as unknown as ParameterizedContext<ApiState>;
    await requestLog(pino({ level: 'silent' }))(ctx as never, async () => {
      if (runId) ctx.state.runId = runId;
    });
    return headers;
  }

  it("sends the run's id as x-trace-id once the request has a run", async () => {
    const headers = await headersFor('0199c5a4-7d2e-7b61-9c1e-5f3a2b1c0d9e');
    expect(headers['x-trace-id']).toBe('0199c5a4-7d2e-7b61-9c1e-5f3a2b1c0d9e');
    expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends the request id as x-trace-id for an answer given before any run started', async () => {
    const headers = await headersFor(undefined, 'support-42');
    expect(headers['x-trace-id']).toBe('support-42');
    expect(headers['x-request-id']).toBe('support-42');
  });
});
