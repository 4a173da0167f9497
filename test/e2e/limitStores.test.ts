import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { embeddedStoreUrl, startEmbeddedStore } from '../../src/billing/embeddedStore';
import { Store } from '../../src/billing/store';
import { closeBackend, limitBackend, type LimitBackend } from '../../src/limits/backend';
import { RequestCounter } from '../../src/limits/requestCounter';
import { streamSlots } from '../../src/limits/streamSlots';
import { freePort } from '../../src/stack/ports';
import { eventually } from '../support/eventually';
import { projectRoot } from '../support/localStack';
import { startPostgresServer } from '../support/postgresServer';
import { startRedisServer } from '../support/redisServer';

/**
 * The counts rate limits keep, on each place they can live: a PostgreSQL server, the embedded
 * store (PGlite over its socket), and Redis. Two "replicas" each, with connections of their own,
 * take from the same counts at once.
 */

interface Replicas {
  backends: [LimitBackend, LimitBackend];
  stop(): Promise<void>;
}

async function onStore(url: string, stopServer: () => Promise<void>): Promise<Replicas> {
  const stores = await Promise.all([Store.open(url), Store.open(url)]);
  return {
    backends: [limitBackend(undefined, stores[0]!.pool), limitBackend(undefined, stores[1]!.pool)],
    stop: async () => {
      await Promise.all(stores.map((store) => store.close()));
      await stopServer();
    },
  };
}

async function postgres(): Promise<Replicas> {
  const server = await startPostgresServer();
  return onStore(server.url, server.stop);
}

async function embedded(): Promise<Replicas> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webloom-limits-'));
  const script = path.join(projectRoot(), 'dist', 'src', 'billing');
  const child = await startEmbeddedStore(dir, { onLine: () => undefined, script });
  return onStore(embeddedStoreUrl(dir), async () => {
    await child.stop();
    await rm(dir, { recursive: true, force: true });
  });
}

async function redis(): Promise<Replicas> {
  const server = await startRedisServer();
  const backends = [0, 1].map(() => limitBackend(server.url, undefined)) as [LimitBackend, LimitBackend];
  // Before it is connected a replica counts on its own; these tests are about the shared counts.
  await eventually(() => backends.every((backend) => backend.kind === 'redis' && backend.client.isReady), {
    what: 'both clients to be connected',
    timeoutMs: 10_000,
  });
  return {
    backends,
    stop: async () => {
      await Promise.all(backends.map(closeBackend));
      await server.stop();
    },
  };
}

/** A lease short enough for a test to watch it run out. */
const LEASE_MS = 2500;

describe.each([
  ['PostgreSQL', postgres],
  ['the embedded store', embedded],
  ['Redis', redis],
])('rate limit counts on %s', (_, start) => {
  let replicas: Replicas;

  beforeAll(async () => {
    replicas = await start();
  }, 180_000);

  afterAll(async () => {
    await replicas?.stop();
  });

  it('lets exactly the limit of requests through, across two replicas at once', async () => {
    const counters = replicas.backends.map((backend) => new RequestCounter(backend, 'requests'));
    const counts = await Promise.all(Array.from({ length: 30 }, (_, i) => counters[i % 2]!.count('busy-org', 10)));
    expect(counts.filter((count) => count.allowed)).toHaveLength(10);
    expect(
      counts
        .filter((count) => count.allowed)
        .map((count) => count.remaining)
        .sort((a, b) => a - b),
    ).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    for (const count of counts) {
      expect(count.limit).toBe(10);
      expect(count.resetMs).toBeGreaterThan(50_000);
      expect(count.resetMs).toBeLessThanOrEqual(60_000);
    }
    // Another key, and another limit for the same key, count on their own figures.
    expect((await counters[0]!.count('quiet-org', 10)).remaining).toBe(9);
    expect(await counters[1]!.count('busy-org', 100)).toMatchObject({ allowed: true, remaining: 100 - 31 });
  });

  it('hands out exactly the limit of stream slots, frees a released one and one whose lease ran out', async () => {
    const slots = replicas.backends.map((backend) => streamSlots(backend));
    const taken = await Promise.all(
      Array.from({ length: 20 }, (_, i) => slots[i % 2]!.take('streaming-org', `slot-${i}`, 3, 60_000)),
    );
    expect(taken.filter(Boolean)).toHaveLength(3);
    const held = taken.flatMap((ok, i) => (ok ? [`slot-${i}`] : []));
    expect(await slots[0]!.take('streaming-org', 'late', 3, 60_000)).toBe(false);
    expect(await slots[0]!.take('other-org', 'own', 1, 60_000)).toBe(true);

    await slots[1]!.release('streaming-org', held[0]!);
    expect(await slots[0]!.take('streaming-org', 'after-release', 3, 60_000)).toBe(true);
    expect(await slots[1]!.take('streaming-org', 'one-too-many', 3, 60_000)).toBe(false);

    // A lease its holder stops renewing (its API died) runs out; one renewed does not. The renewal
    // comes 1 s before the lease would end, room for a machine that stalls.
    await slots[0]!.take('leased-org', 'renewed', 2, LEASE_MS);
    await slots[1]!.take('leased-org', 'abandoned', 2, LEASE_MS);
    // Waiting out most of the lease is the point: the renewal must come while it still holds.
    await new Promise((resolve) => setTimeout(resolve, LEASE_MS - 1000));
    await slots[0]!.renew('leased-org', 'renewed', 60_000);
    // And past its end: the lease not renewed must have lapsed by now.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await slots[1]!.take('leased-org', 'next', 2, 60_000)).toBe(true);
    expect(await slots[1]!.take('leased-org', 'over', 2, 60_000)).toBe(false);
  });
});

it('takes stream slots of its own, to the limit, while Redis is out of reach, and releases them', async () => {
  // A port nothing listens on: the client never connects, as in a process started while Redis is down.
  const backend = limitBackend(`redis://127.0.0.1:${await freePort()}`, undefined);
  const outages: unknown[] = [];
  try {
    const slots = streamSlots(backend, (err) => outages.push(err));
    expect(await slots.take('offline-org', 'first', 2, 60_000)).toBe(true);
    expect(await slots.take('offline-org', 'second', 2, 60_000)).toBe(true);
    expect(await slots.take('offline-org', 'third', 2, 60_000)).toBe(false);
    await slots.renew('offline-org', 'first', 60_000);
    await slots.release('offline-org', 'first');
    expect(await slots.take('offline-org', 'after-release', 2, 60_000)).toBe(true);
    expect(outages).toHaveLength(4);
    expect(String(outages[0])).toContain('offline');
  } finally {
    await closeBackend(backend);
  }
});
