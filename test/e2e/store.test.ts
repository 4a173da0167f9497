import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KEY_PREFIX } from '../../src/billing/apiKeys';
import { embeddedStoreUrl, startEmbeddedStore } from '../../src/billing/embeddedStore';
import { Store } from '../../src/billing/store';
import { RequestCounter } from '../../src/limits/requestCounter';
import type { Child } from '../../src/stack/children';
import { projectRoot } from '../support/localStack';
import { startPostgresServer } from '../support/postgresServer';

/**
 * The store on both of its backends: a PostgreSQL server of its own, and the embedded PGlite
 * process `npm start` runs, reached over the same protocol by the same code.
 *
 * @stack own
 */

interface Backend {
  url: string;
  /** Stops the server and starts it again on the same data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

async function postgresBackend(): Promise<Backend> {
  const server = await startPostgresServer();
  return { url: server.url, restart: async () => undefined, stop: server.stop };
}

async function embeddedBackend(): Promise<Backend> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webloom-store-'));
  const distDir = path.join(projectRoot(), 'dist', 'src', 'billing');
  const start = () => startEmbeddedStore(dir, { onLine: () => undefined, script: distDir });
  let child: Child = await start();
  return {
    url: embeddedStoreUrl(dir),
    // Killed, as a crash would: nothing it would do on its way out is done.
    restart: async () => {
      child.process.kill('SIGKILL');
      await child.exited;
      child = await start();
    },
    stop: async () => {
      await child.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

describe.each([
  ['PostgreSQL', postgresBackend],
  ['the embedded store', embeddedBackend],
])('the store on %s', (_, startBackend) => {
  let backend: Backend;
  let store: Store;

  beforeAll(async () => {
    backend = await startBackend();
    // Two processes starting at once both migrate: the second finds the work done.
    const [first, second] = await Promise.all([Store.open(backend.url), Store.open(backend.url)]);
    await second!.close();
    store = first!;
  }, 180_000);

  afterAll(async () => {
    await store?.close();
    await backend?.stop();
  });

  it('creates the organizations and keys of API_KEYS once, with the opening balance', async () => {
    const keys = new Map([['bootstrap-key-0123456789', 'boot-org']]);
    await store.bootstrap(keys, 500);
    await store.bootstrap(keys, 500);
    expect((await store.organization('boot-org')).balance).toBe(500);
    expect(await store.findKey('bootstrap-key-0123456789')).toEqual({
      organization: 'boot-org',
      keyId: expect.stringMatching(/^key_/),
    });
    expect((await store.ledger('boot-org')).filter((entry) => entry.kind === 'grant')).toHaveLength(1);
  });

  it('keeps keys hashed, shows a new one once, and refuses it once revoked', async () => {
    await store.createOrganization('keys-org');
    const created = await store.createKey('keys-org');
    expect(created.key.startsWith(KEY_PREFIX)).toBe(true);
    const { rows } = await store.pool.query('SELECT * FROM api_keys WHERE id = $1', [created.id]);
    expect(JSON.stringify(rows)).not.toContain(created.key);
    expect(JSON.stringify(await store.keys('keys-org'))).not.toContain(created.key);
    expect(await store.findKey(created.key)).toEqual({ organization: 'keys-org', keyId: created.id });
    await store.revokeKey(created.id);
    expect(await store.findKey(created.key)).toBeUndefined();
  });

  it('lets 100 concurrent charges against a balance worth 10 take exactly 10, down to zero', async () => {
    await store.createOrganization('race-org');
    await store.grant('race-org', 100);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        store.charge({
          organization: 'race-org',
          runKey: `race-org/extract-markdown/${i}`,
          operation: 'extract-markdown',
          amount: 10,
          expiresAt: new Date(Date.now() + 60_000),
        }),
      ),
    );
    expect(results.filter((result) => result === 'charged')).toHaveLength(10);
    expect(results.filter((result) => result === 'insufficient')).toHaveLength(90);
    expect((await store.organization('race-org')).balance).toBe(0);
  });

  it('lets cache hits charged in batches on two replicas at once pay for exactly what a balance of 10 covers', async () => {
    await store.createOrganization('hit-org');
    await store.grant('hit-org', 10);
    const replicas = [store, await Store.open(backend.url)];
    // Hits charged in batches of 1 to 15, as a replica's concurrent hits are: each pays only what the balance covers.
    const batches = Array.from({ length: 14 }, (_, i) =>
      Array.from({ length: 1 + (i % 15) }, (_, j) => `hit-org/cache-hit/${i}-${j}`),
    );
    try {
      const paid = await Promise.all(
        batches.map((runKeys, i) => replicas[i % 2]!.chargeCacheHits('hit-org', 1, runKeys)),
      );
      expect(paid.reduce((a, b) => a + b, 0)).toBe(10);
      expect((await store.organization('hit-org')).balance).toBe(0);
      const charges = (await store.ledger('hit-org', 200)).filter((entry) => entry.kind === 'charge');
      expect(charges.every((entry) => entry.amount === -1 && entry.operation === 'cache-hit')).toBe(true);
      // A batch's hits are paid in their order: its first ones.
      expect(new Set(charges.map((entry) => entry.runKey))).toEqual(
        new Set(batches.flatMap((runKeys, i) => runKeys.slice(0, paid[i]))),
      );
    } finally {
      await replicas[1]!.close();
    }
    // A price of 0 charges nothing and refuses nothing, even at a balance of 0.
    expect(await store.chargeCacheHits('hit-org', 0, ['hit-org/cache-hit/free'])).toBe(1);
    expect(await store.chargeCacheHits('no-such-org', 1, ['no-such-org/cache-hit/1'])).toBe(0);
  });

  it("counts hits' requests and charges them in one statement on two replicas: exactly the limit counted in, exactly the balance paid", async () => {
    await store.createOrganization('counted-org');
    await store.grant('counted-org', 10);
    const replicas = [store, await Store.open(backend.url)];
    const window = { key: 'requests:counted-org', limit: 25, windowMs: 60_000 };
    // Requests counted the usual way share the window: 5 of its 25 are gone before the hits.
    const counter = new RequestCounter({ kind: 'postgres', pool: store.pool }, 'requests');
    for (let i = 0; i < 5; i++) await counter.count('counted-org', window.limit);
    const batches = Array.from({ length: 12 }, (_, i) =>
      Array.from({ length: 1 + (i % 5) }, (_, j) => `counted-org/cache-hit/${i}-${j}`),
    );
    try {
      const results = await Promise.all(
        batches.map((runKeys, i) => replicas[i % 2]!.countAndChargeCacheHits('counted-org', 1, runKeys, window)),
      );
      const hits = batches.flat().length;
      // Whatever the order the batches came in, their counts follow one another up to the last.
      expect(
        results
          .map((result) => result.counted)
          .sort((a, b) => a - b)
          .at(-1),
      ).toBe(5 + hits);
      expect(results.reduce((sum, result) => sum + result.paid, 0)).toBe(10);
      expect(results.every((result) => result.resetsAt > Date.now())).toBe(true);
      expect((await store.organization('counted-org')).balance).toBe(0);
      // The next request counted the usual way sees every hit counted.
      expect(await counter.count('counted-org', window.limit)).toMatchObject({ allowed: false, remaining: 0 });
    } finally {
      await replicas[1]!.close();
    }
    // Past the limit a hit is counted and not charged, however much the balance holds.
    await store.grant('counted-org', 10);
    expect(await store.countAndChargeCacheHits('counted-org', 1, ['counted-org/cache-hit/late'], window)).toMatchObject(
      {
        paid: 0,
      },
    );
    expect((await store.organization('counted-org')).balance).toBe(10);
  });

  it('sells blocks of hits on two replicas within an eighth of the balance and the limit, and takes back what was unused', async () => {
    await store.createOrganization('block-org');
    await store.grant('block-org', 8_000);
    const replicas = [store, await Store.open(backend.url)];
    const window = { key: 'requests:block-org', limit: 4_000, windowMs: 60_000 };
    const reserve = (replica: Store, i: number, wanted: number) =>
      replica.reserveCacheHits({
        organization: 'block-org',
        price: 2,
        wanted,
        fewest: 16,
        blockKey: `block-org/cache-hit-block/${i}`,
        chargedBy: 'api-test',
        expiresAt: new Date(Date.now() + 60_000),
        window,
      });
    try {
      // The balance covers 4,000 hits and the window has 4,000 left: an eighth is 500 either way.
      const [first, second] = await Promise.all([reserve(replicas[0]!, 1, 1000), reserve(replicas[1]!, 2, 1000)]);
      const grants = [first!.granted, second!.granted].sort((a, b) => a - b);
      // Whichever came second found less left: an eighth of 3,500 is 437.
      expect(grants).toEqual([437, 500]);
      expect(Math.max(first!.counted, second!.counted)).toBe(937);
      expect((await store.organization('block-org')).balance).toBe(8_000 - 2 * 937);
      // 100 of the 500 used: 400 hits' credits and requests come back, once.
      const big = first!.granted === 500 ? 1 : 2;
      const ends = first!.resetsAt;
      expect(
        await store.releaseCacheHits(`block-org/cache-hit-block/${big}`, 200, 400, { key: window.key, ends }),
      ).toBe(800);
      expect(
        await store.releaseCacheHits(`block-org/cache-hit-block/${big}`, 200, 400, { key: window.key, ends }),
      ).toBe(0);
      expect((await store.organization('block-org')).balance).toBe(8_000 - 2 * 937 + 800);
      const counter = new RequestCounter({ kind: 'postgres', pool: store.pool }, 'requests');
      expect(await counter.count('block-org', window.limit)).toMatchObject({ remaining: 4_000 - 537 - 1 });
      const entries = await store.ledger('block-org', 10);
      expect(entries.filter((entry) => entry.runKey === `block-org/cache-hit-block/${big}`)).toEqual([
        expect.objectContaining({ kind: 'refund', amount: 800, operation: 'cache-hit' }),
        expect.objectContaining({ kind: 'charge', amount: -1000, note: 'a block of 500 cache hits' }),
      ]);
    } finally {
      await replicas[1]!.close();
    }
    // Less than an eighth of the balance in a block worth holding: none, and nothing changes.
    await store.createOrganization('poor-block-org');
    await store.grant('poor-block-org', 100);
    expect(
      await store.reserveCacheHits({
        organization: 'poor-block-org',
        price: 1,
        wanted: 64,
        fewest: 16,
        blockKey: 'poor-block-org/cache-hit-block/1',
        chargedBy: 'api-test',
        expiresAt: new Date(Date.now() + 60_000),
        window: { key: 'requests:poor-block-org', limit: 1000, windowMs: 60_000 },
      }),
    ).toMatchObject({ granted: 0, counted: 0 });
    expect((await store.organization('poor-block-org')).balance).toBe(100);
  });

  it("commits cache hits' charges, their blocks and kept runs' settlements without waiting for the disk, and only theirs", async () => {
    await store.createOrganization('async-org');
    await store.grant('async-org', 10);
    const statements = [
      `SELECT charge_cache_hits('async-org', 1, ARRAY['async-org/cache-hit/1'])`,
      `SELECT settle_kept(ARRAY['async-org/extract-markdown/1'])`,
      `SELECT * FROM reserve_cache_hits('async-org', 1, 16, 16, 'async-org/cache-hit-block/1', NULL, now(), NULL, NULL, NULL, 0)`,
      `SELECT * FROM release_cache_hits('async-org/cache-hit-block/1', 0, 0, NULL, NULL)`,
    ];
    const client = await store.pool.connect();
    try {
      for (const statement of statements) {
        await client.query('BEGIN');
        await client.query(statement);
        const inside = await client.query<{ setting: string }>(
          `SELECT current_setting('synchronous_commit') AS setting`,
        );
        await client.query('COMMIT');
        expect({ statement, setting: inside.rows[0]!.setting }).toEqual({ statement, setting: 'off' });
        // The embedded store serves every connection in one session: the setting must end with the transaction.
        const after = await client.query<{ setting: string }>(
          `SELECT current_setting('synchronous_commit') AS setting`,
        );
        expect(after.rows[0]!.setting).toBe('on');
      }
    } finally {
      client.release();
    }
    expect((await store.organization('async-org')).balance).toBe(9);
  });

  it('counts requests in a table whose writes wait for no disk', async () => {
    const { rows } = await store.pool.query<{ persistence: string }>(
      `SELECT relpersistence AS persistence FROM pg_class WHERE relname = 'rate_limits'`,
    );
    expect(rows).toEqual([{ persistence: 'u' }]);
  });

  it('charges a run once and refunds it once', async () => {
    await store.createOrganization('once-org');
    await store.grant('once-org', 100);
    const charge = {
      organization: 'once-org',
      runKey: 'once-org/extract-json/1',
      operation: 'extract-json',
      amount: 50,
      expiresAt: new Date(Date.now() + 60_000),
    };
    const results = await Promise.all([store.charge(charge), store.charge(charge), store.charge(charge)]);
    expect(results.sort()).toEqual(['already_charged', 'already_charged', 'charged']);
    expect((await store.organization('once-org')).balance).toBe(50);
    const settled = await Promise.all([
      store.settle(charge.runKey, true, 'failed: fetch_failed'),
      store.settle(charge.runKey, true, 'failed: fetch_failed'),
    ]);
    expect(settled.filter(Boolean)).toEqual([{ organization: 'once-org', operation: 'extract-json', refunded: 50 }]);
    expect((await store.organization('once-org')).balance).toBe(100);
    expect((await store.ledger('once-org')).map((entry) => [entry.kind, entry.amount])).toEqual([
      ['refund', 50],
      ['charge', -50],
      ['grant', 100],
    ]);
  });

  it('keeps everything across a crash and restart of the store', async () => {
    await store.close();
    await backend.restart();
    store = await Store.open(backend.url);
    expect((await store.organization('once-org')).balance).toBe(100);
    expect(await store.findKey('bootstrap-key-0123456789')).toBeDefined();
  }, 120_000);
});
