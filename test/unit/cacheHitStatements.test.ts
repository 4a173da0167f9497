import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@temporalio/client';
import type { Pool } from 'pg';
import pino from 'pino';
import { createApp } from '../../src/api/app';
import { closeApiDeps, createApiDeps } from '../../src/api/deps';
import { Store } from '../../src/billing/store';
import { loadConfig, PAYLOAD_KEYS_VARIABLE } from '../../src/config';
import { TEST_PAYLOAD_KEYS } from '../support/payloadKeys';

/**
 * The statements a cache hit costs the store, counted at the pool: the API as it is built
 * (src/api/app.ts, deps.ts), on a pool that answers the store's SQL as PostgreSQL would for one
 * organization, and a cache that always has the page.
 */

const KEY = 'wl_live_0123456789abcdef0123456789abcdef';

function storePool(requestsPerMinute: number, balance: number) {
  /** What reached the store per request: statements other than key and limit lookups, which are cached. */
  const statements: string[] = [];
  let points = 0;
  const rows = (list: unknown[]) => ({ rows: list, rowCount: list.length });
  const pay = (price: number, hits: number): number => {
    const paid = Math.min(hits, Math.floor(balance / price));
    balance -= paid * price;
    return paid;
  };
  const pool = {
    query: async (text: string, values: unknown[] = []) => {
      // A statement answers on a later turn.
      await new Promise((resolve) => setImmediate(resolve));
      if (text.includes('FROM api_keys')) return rows([{ id: 'key_1', organization: 'acme' }]);
      if (text.includes('FROM organizations WHERE name'))
        return rows([
          {
            name: 'acme',
            balance,
            requests_per_minute: requestsPerMinute,
            concurrent_streams: null,
            created_at: new Date(),
          },
        ]);
      if (text.includes('billing_processes')) return rows([]);
      if (text.includes('count_and_charge_cache_hits')) {
        // With parameters a statement is five messages of the protocol, which the embedded store
        // handles one by one; inlined, one.
        statements.push(values.length > 0 ? 'count and charge, with parameters' : 'count and charge');
        // Key, limit, window, now, organization, price, then the hits' keys.
        const [limit, windowMs, now, price, hits] =
          values.length > 0
            ? [values[1], values[2], values[3], values[5], (values[6] as string[]).length].map(Number)
            : text
                .match(/\('[^']*', (\d+), (\d+), (\d+), '[^']*', (\d+), ARRAY\[(.*)\]::text\[\]\)/)!
                .slice(1)
                .map((value, i) => (i === 4 ? value.split(', ').length : Number(value)));
        points += hits!;
        const within = Math.max(0, Math.min(hits!, limit! - (points - hits!)));
        return rows([{ counted: points, resets_at: String(now! + windowMs!), paid: pay(price!, within) }]);
      }
      if (/INSERT INTO "?rate_limits/.test(text)) {
        statements.push('count');
        const [, added, expire] = values as [string, number, number];
        points += added;
        return rows([{ points, expire }]);
      }
      if (text.includes('charge_cache_hits')) {
        statements.push('charge');
        const [, price, runKeys] = values as [string, number, string[]];
        return rows([{ paid: pay(price, runKeys.length) }]);
      }
      // Recorded too: rate-limiter-flexible would count on in memory after a failed statement.
      statements.push(`unknown: ${text}`);
      throw new Error(`a statement the stand-in does not know: ${text}`);
    },
    on: () => undefined,
    end: async () => undefined,
  } as unknown as Pool;
  return { pool, statements, balance: () => balance };
}

const servers: Server[] = [];
const closing: (() => Promise<void>)[] = [];

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  await Promise.all(closing.splice(0).map((close) => close()));
});

async function serve(pool: Pool): Promise<string> {
  const logger = pino({ level: 'silent' });
  const store = new (Store as unknown as new (pool: Pool) => Store)(pool);
  const deps = createApiDeps(loadConfig({ [PAYLOAD_KEYS_VARIABLE]: TEST_PAYLOAD_KEYS }), {} as Client, logger, store);
  const page = { markdown: '# Cached', metadata: { title: 'Cached' }, storedAt: Date.now() };
  const app = createApp({ ...deps, cache: { get: async () => page, set: async () => undefined } }, logger);
  closing.push(() => closeApiDeps(deps));
  const server = app.listen(0, '127.0.0.1');
  servers.push(server);
  await new Promise((resolve) => server.once('listening', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

const hit = (base: string) =>
  fetch(`${base}/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url: 'https://example.com/cached' }),
  });

it("counts a cache hit's request and charges the hit in one statement of one message", async () => {
  const store = storePool(100, 100);
  const base = await serve(store.pool);
  for (let i = 0; i < 3; i++) {
    const before = store.statements.length;
    const response = await hit(base);
    expect(response.status).toBe(200);
    expect(response.headers.get('x-cache')).toBe('hit');
    expect(response.headers.get('x-ratelimit-remaining')).toBe(String(99 - i));
    expect(store.statements.slice(before)).toEqual(['count and charge']);
  }
  expect(store.balance()).toBe(97);
});

it('answers a hit the balance cannot pay 402 and one past the limit 429, both with their headers', async () => {
  const store = storePool(3, 2);
  const base = await serve(store.pool);
  const answers = [];
  for (let i = 0; i < 4; i++) {
    const response = await hit(base);
    answers.push({
      status: response.status,
      remaining: response.headers.get('x-ratelimit-remaining'),
      retryAfter: response.headers.get('retry-after') !== null,
    });
  }
  expect(answers).toEqual([
    { status: 200, remaining: '2', retryAfter: false },
    { status: 200, remaining: '1', retryAfter: false },
    { status: 402, remaining: '0', retryAfter: false },
    { status: 429, remaining: '0', retryAfter: true },
  ]);
  expect(store.balance()).toBe(0);
});
