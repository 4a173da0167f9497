import { spawnSync } from 'node:child_process';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import {
  ENCRYPTED_ENCODING,
  GZIP_ENCODING,
  KEY_ID_METADATA,
  ServicePayloadCodec,
} from '../../src/temporal/payloadCodec';
import { decide } from '../support/agentScript';
import { apiKey, apiUrl, post, stackSetting } from '../support/api';
import { startAutomateSite } from '../support/automateSite';
import type { StandInScript } from '../support/modelStandIn';
import { SseStream } from '../support/sseClient';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { gzippedZeros, MiB } from '../support/gzipBomb';
import { testPayloadKeys } from '../support/payloadKeys';
import { eventually } from '../support/eventually';

const codec = new ServicePayloadCodec(testPayloadKeys);
const jsonPayload = (value: unknown) => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});
const utf8 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('utf8');

const PARAGRAPH = 'The harbour wakes before the sun, and the nets are mended by hand on the long stone quay. ';
const LONG_ARTICLE = `<html><head><title>Long harbour story</title></head><body><article><h1>Long harbour story</h1>
${Array.from({ length: 80 }, (_, i) => `<p>${i}: ${PARAGRAPH.repeat(2)}</p>`).join('\n')}</article></body></html>`;

let fixtures: FixtureServer;
const codecUrl = () => apiUrl().replace(/\/v1$/, '/codec');
/** What the Web UI is configured with: the codec behind its secret path. */
const uiCodecUrl = () => `${codecUrl()}/${stackSetting('CODEC_SECRET')}`;
const asWire = (data: Buffer) => ({
  metadata: { encoding: Buffer.from(GZIP_ENCODING).toString('base64') },
  data: data.toString('base64'),
});
const decodeRequest = (body: unknown, headers: Record<string, string> = {}) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
  body: JSON.stringify(body),
});

beforeAll(async () => {
  fixtures = await startFixtureServer({ '/long': html(LONG_ARTICLE) });
});

afterAll(async () => {
  await fixtures.close();
});

/** A run's history as Temporal stores it: read with no codec, as anyone with access to Temporal can. */
async function rawHistory(workflowId: string): Promise<History> {
  const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
  try {
    const client = new Client({ connection, namespace: process.env.TEST_TEMPORAL_NAMESPACE });
    return await client.workflow.getHandle(workflowId).fetchHistory();
  } finally {
    await connection.close();
  }
}

const isPayload = (value: object): value is Payload => 'data' in value && 'metadata' in value;

/** Every payload in a history, wherever it sits (inputs, results, update arguments, memo). */
function payloadsOf(value: unknown, found: Payload[] = []): Payload[] {
  if (!value || typeof value !== 'object' || value instanceof Uint8Array) return found;
  if (isPayload(value)) found.push(value);
  else for (const inner of Object.values(value)) payloadsOf(inner, found);
  return found;
}

/** All the text a history shows without keys: its strings, and its payloads' bytes, gunzipped where gzipped. */
function readableText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Uint8Array) {
    const bytes = Buffer.from(value);
    return bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes).toString('utf8') : bytes.toString('latin1');
  }
  if (!value || typeof value !== 'object') return '';
  return Object.values(value).map(readableText).join('\n');
}

const wirePayload = (payload: Payload) => ({
  metadata: Object.fromEntries(
    Object.entries(payload.metadata ?? {}).map(([key, value]) => [key, Buffer.from(value).toString('base64')]),
  ),
  data: Buffer.from(payload.data ?? []).toString('base64'),
});

describe('payload codec', () => {
  it('stores a long page compressed and encrypted in history, and the Web UI codec endpoint reads it back', async () => {
    const res = await post<{ content: string }>('/extract/markdown', {
      url: fixtures.url('/long'),
      effort: 'min',
      metadata: true,
      nocache: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('79: The harbour wakes');
    const connection = await Connection.connect({ address: process.env.TEST_TEMPORAL_ADDRESS });
    let result;
    try {
      const client = new Client({ connection, namespace: process.env.TEST_TEMPORAL_NAMESPACE });
      const history = await client.workflow.getHandle(res.headers.get('x-workflow-id') ?? '').fetchHistory();
      const completed = history.events?.find((event) => event.workflowExecutionCompletedEventAttributes);
      result = completed?.workflowExecutionCompletedEventAttributes?.result?.payloads?.[0];
    } finally {
      await connection.close();
    }
    expect(utf8(result?.metadata?.encoding)).toBe(ENCRYPTED_ENCODING);
    expect(utf8(result?.metadata?.[KEY_ID_METADATA])).toBe('test1');
    expect(utf8(result?.metadata?.['webloom-sealed-encoding'])).toBe(GZIP_ENCODING);

    const preflight = await fetch(`${uiCodecUrl()}/decode`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:8233',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type,x-namespace',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('http://localhost:8233');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toContain('x-namespace');
    const asJson = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');
    const metadata = Object.fromEntries(
      Object.entries(result?.metadata ?? {}).map(([key, value]) => [key, asJson(value)]),
    );
    const decoded = await fetch(
      `${uiCodecUrl()}/decode`,
      decodeRequest({ payloads: [{ metadata, data: asJson(result?.data) }] }),
    );
    expect(decoded.status).toBe(200);
    const [payload] = ((await decoded.json()) as { payloads: { metadata: Record<string, string>; data: string }[] })
      .payloads;
    expect(Buffer.from(payload!.metadata.encoding!, 'base64').toString()).toBe('json/plain');
    expect(JSON.parse(Buffer.from(payload!.data, 'base64').toString()).content).toBe(res.body.content);
  });

  it("keeps automate's data and the caller's answers out of history in clear; the Web UI endpoint reads them", async () => {
    const site = await startAutomateSite();
    try {
      const ref = (role: string, name: string) => `{{ref:${role} "${name}"}}`;
      const data = {
        name: 'Ana Geheim',
        email: 'ana.geheim-7731@example.org',
        phone: '+49 30 7731 0042',
        street: 'Geheimweg 42',
        postal: '20457',
      };
      const card = '4111 1111 1111 1111';
      const script: StandInScript = {
        replies: [],
        byFormat: {
          automate_plan: [
            {
              keep: true,
              content: JSON.stringify({ plan: 'Check out', successCriteria: 'Ordered', actionItems: [] }),
            },
          ],
          automate_validation: [
            {
              keep: true,
              content: JSON.stringify({ completionQuality: 'complete', observation: 'Ordered', feedback: '' }),
            },
          ],
          automate_action: [
            decide('Place order', { action: 'fill', ref: ref('textbox', 'Full name'), dataPath: 'name' }),
            decide('Place order', { action: 'fill', ref: ref('textbox', 'Email'), dataPath: 'email' }),
            decide('Place order', { action: 'fill', ref: ref('textbox', 'Phone'), dataPath: 'phone' }),
            decide('Place order', { action: 'fill', ref: ref('textbox', 'Street address'), dataPath: 'street' }),
            decide('Place order', { action: 'fill', ref: ref('textbox', 'Postal code'), dataPath: 'postal' }),
            decide('Place order', { action: 'request_input', ref: ref('textbox', 'Card number'), text: 'Card' }),
            decide('Place order', { action: 'click', ref: ref('button', 'Place order') }),
            { ...decide('Order confirmed', { action: 'done', text: 'Ordered' }), keep: true },
          ],
        },
      };
      await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(script) });
      const stream = await SseStream.open(`${apiUrl()}/automate`, {
        key: apiKey(),
        method: 'POST',
        body: {
          task: 'Buy the Aurora headphones',
          url: `${site.url}/checkout`,
          interactive: true,
          data,
          maxIterations: 12,
        },
      });
      expect(stream.response.status).toBe(200);
      const workflowId = stream.response.headers.get('x-workflow-id')!;
      await stream.until(
        (s) => s.events.some((m) => ['interactive:form_data:request', 'done'].includes(m.event!)),
        90_000,
      );
      const request = stream.events.find((m) => m.event === 'interactive:form_data:request');
      expect(request).toBeDefined();
      const { requestId, fields } = JSON.parse(request!.data!) as {
        requestId: string;
        fields: { ref: string; label: string }[];
      };
      const refOf = (label: string) => fields.find((field) => field.label === label)!.ref;
      const values = [
        { ref: refOf('Card number'), value: card },
        { ref: refOf('CVC'), value: '987' },
      ];
      const answered = await fetch(`${apiUrl()}/automate/${requestId}/input`, {
        method: 'POST',
        headers: { authorization: `Bearer ${apiKey()}`, 'content-type': 'application/json' },
        body: JSON.stringify({ fields: values }),
      });
      expect(answered.status).toBe(202);
      await stream.until((s) => s.events.some((m) => m.event === 'done'), 90_000);
      const orders = site.received('/checkout').filter((received) => received.method === 'POST');
      expect(orders.at(-1)?.form).toMatchObject({ card, email: data.email });

      const history = await rawHistory(workflowId);
      const readable = readableText(history);
      const secrets = [data.name, data.email, data.phone, data.street, card];
      const inClear = secrets.filter((secret) => readable.includes(secret));
      // Before encryption: all of them, in the start input, the snapshots after each fill and the update's arguments.
      expect(inClear).toEqual([]);
      const memo = history.events?.[0]?.workflowExecutionStartedEventAttributes?.memo?.fields ?? {};
      expect(Object.keys(memo)).toContain('url');
      expect(Object.values(memo).map((field) => utf8(field.metadata?.encoding))).toEqual(
        Object.values(memo).map(() => ENCRYPTED_ENCODING),
      );

      const payloads = payloadsOf(history).filter((payload) => payload.data && payload.data.length > 0);
      const decoded = await fetch(`${uiCodecUrl()}/decode`, decodeRequest({ payloads: payloads.map(wirePayload) }));
      expect(decoded.status).toBe(200);
      const text = ((await decoded.json()) as { payloads: { data?: string }[] }).payloads
        .map((payload) => Buffer.from(payload.data ?? '', 'base64').toString('utf8'))
        .join('\n');
      for (const secret of secrets) expect(text).toContain(secret);
    } finally {
      await site.close();
    }
  }, 180_000);

  it('decodes only for the Web UI secret or an API key, and never logs the secret', async () => {
    const [large] = await codec.encode([jsonPayload({ content: PARAGRAPH.repeat(100) })]);
    const asJson = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('base64');
    const metadata = Object.fromEntries(
      Object.entries(large!.metadata ?? {}).map(([key, value]) => [key, asJson(value)]),
    );
    const body = { payloads: [{ metadata, data: asJson(large!.data) }] };
    const unauthorized = { error: 'invalid or missing API key' };
    for (const [url, headers] of [
      [`${codecUrl()}/decode`, {}],
      [`${codecUrl()}/encode`, {}],
      [`${codecUrl()}/decode`, { authorization: 'Bearer not-a-real-key-at-all' }],
      [`${codecUrl()}/not-the-codec-secret-at-all/decode`, {}],
      [`${codecUrl()}/not-the-codec-secret-at-all/decode`, { authorization: `Bearer ${apiKey()}` }],
    ] as const) {
      const res = await fetch(url, decodeRequest(body, headers));
      expect({ url, status: res.status, body: await res.json() }).toEqual({ url, status: 401, body: unauthorized });
    }
    for (const [url, headers] of [
      [`${uiCodecUrl()}/decode`, {}],
      [`${codecUrl()}/decode`, { authorization: `Bearer ${apiKey()}` }],
    ] as const) {
      const res = await fetch(url, decodeRequest(body, headers));
      expect(res.status).toBe(200);
      const [payload] = ((await res.json()) as { payloads: { data: string }[] }).payloads;
      expect(JSON.parse(Buffer.from(payload!.data, 'base64').toString()).content).toBe(PARAGRAPH.repeat(100));
    }
    // The harness copies each API replica's output to its file as it comes: wait for the line.
    const logDir = path.resolve(__dirname, '..', '..', 'data', 'test-logs');
    const readLog = async () => {
      const apiLogs = (await readdir(logDir)).filter((name) => /^api(-\d+)?\.log$/.test(name));
      return (await Promise.all(apiLogs.map((name) => readFile(path.join(logDir, name), 'utf8')))).join('');
    };
    const log = await eventually(
      async () => {
        const text = await readLog();
        return text.includes('/codec/:secret/decode') && text;
      },
      { what: "the codec request's log line", timeoutMs: 10_000, intervalMs: 100 },
    );
    expect(log).not.toContain(stackSetting('CODEC_SECRET'));
  });

  it('grants the codec to the Web UI origin only', async () => {
    const endpoint = uiCodecUrl();
    for (const origin of ['http://localhost:8233', 'http://127.0.0.1:8233']) {
      const preflight = await fetch(`${endpoint}/decode`, {
        method: 'OPTIONS',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    }
    const foreign = 'https://attacker.example';
    const preflight = await fetch(`${endpoint}/decode`, {
      method: 'OPTIONS',
      headers: { origin: foreign, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
    expect(preflight.headers.get('access-control-allow-methods')).toBeNull();
    const decoded = await fetch(`${endpoint}/decode`, {
      method: 'POST',
      headers: { origin: foreign, 'content-type': 'application/json' },
      body: JSON.stringify({ payloads: [] }),
    });
    expect(decoded.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('payload keys at start', () => {
  const DIST = path.resolve(__dirname, '..', '..', 'dist', 'src');
  const run = ([program, ...args]: string[], keys: string | undefined) => {
    const env = { ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv), PAYLOAD_KEYS: keys };
    if (keys === undefined) delete env.PAYLOAD_KEYS;
    const result = spawnSync(process.execPath, [path.join(DIST, program!), ...args], {
      env,
      encoding: 'utf8',
      timeout: 30_000,
      // A program that started instead of refusing would take its graceful stop, the worker blocked meanwhile.
      killSignal: 'SIGKILL',
    });
    return { status: result.status, stderr: result.stderr.trim().split('\n').at(-1) };
  };
  const programs = [['api/main.js'], ['workers/main.js'], ['tools/replayRun.js', 'some/workflow/id']];

  it('stops the API, a worker and the tools at start without PAYLOAD_KEYS, naming it', () => {
    for (const program of programs) {
      expect(run(program, undefined)).toEqual({
        status: 1,
        stderr: expect.stringMatching(/^configuration error: PAYLOAD_KEYS: not set/) as unknown,
      });
    }
  });

  it('stops them with a malformed key, naming the variable and not the key', () => {
    const short = Buffer.alloc(16, 's').toString('base64');
    for (const program of programs) {
      const { status, stderr } = run(program, `k1:${short}`);
      expect({ status, stderr }).toEqual({
        status: 1,
        stderr: expect.stringMatching(/^configuration error: PAYLOAD_KEYS: key "k1" is 16 bytes, not 32/) as unknown,
      });
      expect(stderr).not.toContain(short);
    }
  });
});

describe('codec limits', () => {
  const pid = process.env.TEST_API_PID;
  /** The API process's peak resident memory since the last reset, in MiB (Linux's VmHWM). */
  const apiPeakRssMiB = async () =>
    Number(/VmHWM:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024;
  const resetApiPeakRss = () => writeFile(`/proc/${pid}/clear_refs`, '5');

  it('refuses gigabyte bombs quickly, with bounded memory, while other requests are served', async () => {
    const bomb = gzippedZeros(16 * MiB, 64);
    expect(bomb.byteLength).toBeLessThan(1.5 * MiB);
    await resetApiPeakRss();
    const healthMs: number[] = [];
    let bombing = true;
    const healthChecks = (async () => {
      while (bombing) {
        const started = performance.now();
        const res = await fetch(`${apiUrl().replace(/\/v1$/, '')}/healthz`);
        expect(res.status).toBe(200);
        healthMs.push(performance.now() - started);
        // A probe every 10 ms while the bombs land: the pace of the load, not a wait for anything.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    const started = performance.now();
    let answers: Response[];
    try {
      answers = await Promise.all(
        Array.from({ length: 4 }, () => fetch(`${uiCodecUrl()}/decode`, decodeRequest({ payloads: [asWire(bomb)] }))),
      );
    } finally {
      // Else a test that timed out would leave the probes running through every later file.
      bombing = false;
    }
    const bombsMs = performance.now() - started;
    await healthChecks;
    for (const res of answers) {
      expect(res.status).toBe(413);
      expect(await res.json()).toEqual({
        error: `decoded payloads are too large: at most ${8 * MiB} bytes each and ${32 * MiB} per request`,
      });
    }
    // Before the caps one such bomb took 16 s, held /healthz as long and peaked at 4.5 GB.
    // The bounds leave room for a machine busy with other work.
    expect(bombsMs).toBeLessThan(5000);
    expect(healthMs.length).toBeGreaterThan(0);
    expect(Math.max(...healthMs)).toBeLessThan(1000);
    expect(await apiPeakRssMiB()).toBeLessThan(400);
  });

  it('caps what all payloads of one request inflate to', async () => {
    const payload = asWire(gzippedZeros(7 * MiB, 1));
    const res = await fetch(
      `${uiCodecUrl()}/decode`,
      decodeRequest({ payloads: [payload, payload, payload, payload, payload] }),
    );
    expect(res.status).toBe(413);
    const fits = await fetch(
      `${uiCodecUrl()}/decode`,
      decodeRequest({ payloads: [payload, payload, payload, payload] }),
    );
    expect(fits.status).toBe(200);
    const decoded = ((await fits.json()) as { payloads: { data: string }[] }).payloads;
    expect(decoded.map((one) => Buffer.from(one.data, 'base64').byteLength)).toEqual([
      7 * MiB,
      7 * MiB,
      7 * MiB,
      7 * MiB,
    ]);
  });

  it('answers 400 for a payload that is not gzip, or that no configured key decrypts', async () => {
    const res = await fetch(
      `${uiCodecUrl()}/decode`,
      decodeRequest({ payloads: [asWire(Buffer.from('not gzip at all'))] }),
    );
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'payloads[0].data is not valid gzip' });
    const [sealed] = await codec.encode([jsonPayload({ data: { password: 'correct-horse-42' } })]);
    const foreign = wirePayload({
      ...sealed!,
      metadata: { ...sealed!.metadata, [KEY_ID_METADATA]: Buffer.from('elsewhere') },
    });
    const unknownKey = await fetch(`${uiCodecUrl()}/decode`, decodeRequest({ payloads: [foreign] }));
    expect(unknownKey.status).toBe(400);
    expect(await unknownKey.json()).toEqual({
      error: 'payloads[0] cannot be decrypted: no configured key has the id "elsewhere"',
    });
  });
});
