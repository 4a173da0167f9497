import type { Client } from '@temporalio/client';
import type { Context } from 'koa';
import type { Pool } from 'pg';
import pino from 'pino';
import { Counter } from 'prom-client';
import { StoreBilling } from '../../src/billing/billing';
import type { Store } from '../../src/billing/store';
import { createRunStarter } from '../../src/api/runStarter';
import { RequestCounter } from '../../src/limits/requestCounter';
import { loadConfig } from '../../src/config';
import { eventually } from '../support/eventually';

/**
 * The round trips billing adds to a request, counted at the boundaries of this process: the
 * store's statements and Temporal's calls, with both stood in for by recorders.
 */

const RUNS = 20;
const HIT_BALANCE = 10;

function recorders() {
  const calls = {
    describe: 0,
    charge: 0,
    hitStatements: 0,
    findKey: 0,
    settleStatements: 0,
    settled: new Set<string>(),
  };
  // Enough for HIT_BALANCE cache hits; each way of charging takes from it as the store would.
  let balance = HIT_BALANCE;
  const store = {
    findKey: async () => {
      calls.findKey++;
      // Answered on a later turn, as a statement would be: the other requests arrive meanwhile.
      await new Promise((resolve) => setImmediate(resolve));
      return { organization: 'acme', keyId: 'key_1' };
    },
    charge: async (charge: { operation: string; amount: number }) => {
      calls.charge++;
      await new Promise((resolve) => setImmediate(resolve));
      if (charge.operation !== 'cache-hit') return 'charged';
      if (balance < charge.amount) return 'insufficient';
      balance -= charge.amount;
      return 'charged';
    },
    chargeCacheHits: async (_organization: string, price: number, runKeys: string[]) => {
      calls.hitStatements++;
      await new Promise((resolve) => setImmediate(resolve));
      const paid = Math.min(runKeys.length, Math.floor(balance / price));
      balance -= paid * price;
      return paid;
    },
    settle: async (runKey: string) => {
      calls.settleStatements++;
      calls.settled.add(runKey);
      return undefined;
    },
    settleKept: async (runKeys: string[]) => {
      calls.settleStatements++;
      for (const runKey of runKeys) calls.settled.add(runKey);
    },
    checked: async () => undefined,
    alive: async () => undefined,
    unsettled: async () => [],
    close: async () => undefined,
  } as unknown as Store;
  const client = {
    workflow: {
      start: async () => ({ firstExecutionRunId: 'run' }),
      getHandle: () => ({
        result: async () => 'done',
        describe: async () => {
          calls.describe++;
          return { status: { name: 'COMPLETED' } };
        },
      }),
    },
  } as unknown as Client;
  return { calls, store, client };
}

const counter = () =>
  new Counter({ name: `c${Math.random().toString(36).slice(2)}`, help: 'h', labelNames: ['operation'], registers: [] });

function storeBilling(store: Store, client: Client): StoreBilling {
  return new StoreBilling(
    store,
    // No sweep: what is counted is what the requests themselves cost.
    { ...loadConfig({}).billing, settleIntervalMs: 600_000 },
    client,
    { charged: counter(), refunded: counter() },
    pino({ level: 'silent' }),
  );
}

it('looks a key up once for the requests that present it at once', async () => {
  const { calls, store, client } = recorders();
  const billing = storeBilling(store, client);
  try {
    const organizations = await Promise.all(
      Array.from({ length: 32 }, () => billing.organizationOf('wl_live_0123456789abcdef')),
    );
    expect(new Set(organizations)).toEqual(new Set(['acme']));
    expect(calls.findKey).toBe(1);
  } finally {
    await billing.close();
  }
});

it('settles completed runs without asking Temporal, many to a statement', async () => {
  const { calls, store, client } = recorders();
  const billing = storeBilling(store, client);
  const logger = pino({ level: 'silent' });
  const runs = createRunStarter(loadConfig({}), client, logger, counter(), billing);
  const ctx = () => ({ state: { organization: 'acme', log: logger }, set: () => undefined }) as unknown as Context;
  try {
    await Promise.all(
      Array.from({ length: RUNS }, async () =>
        runs.result(await runs.start(ctx(), 'extract-markdown', 'extractMarkdown', { args: [], timeout: '1 minute' })),
      ),
    );
    await eventually(() => calls.settled.size === RUNS, { what: 'every run settled', timeoutMs: 5000 });
    expect(calls).toMatchObject({ charge: RUNS, describe: 0, settleStatements: 1 });
  } finally {
    await billing.close();
  }
});

it('counts the requests of an organization that arrive at once in a statement or two, each told its own figures', async () => {
  // rate-limiter-flexible's upsert, as PostgreSQL would answer it: the key's points after adding.
  const counts = new Map<string, number>();
  let statements = 0;
  const pool = {
    query: async (_text: string, values: [string, number, number, number]) => {
      statements++;
      await new Promise((resolve) => setImmediate(resolve));
      const [key, points, expire] = values;
      counts.set(key, (counts.get(key) ?? 0) + points);
      return { rows: [{ points: counts.get(key), expire }], rowCount: 1 };
    },
  } as unknown as Pool;
  const counter = new RequestCounter({ kind: 'postgres', pool }, 'requests');
  const results = await Promise.all(Array.from({ length: 32 }, () => counter.count('acme', 20)));
  expect(statements).toBeLessThanOrEqual(2);
  expect(results.filter((count) => count.allowed)).toHaveLength(20);
  expect(results.map((count) => count.remaining)).toEqual([
    ...Array.from({ length: 20 }, (_, i) => 19 - i),
    ...Array.from({ length: 12 }, () => 0),
  ]);
  expect(results.slice(20).every((count) => !count.allowed)).toBe(true);
});

it('charges the cache hits of an organization that arrive at once in a statement or two, exactly as many as it can pay', async () => {
  const { calls, store, client } = recorders();
  const billing = storeBilling(store, client);
  try {
    const outcomes = await Promise.allSettled(Array.from({ length: 32 }, () => billing.chargeCacheHit('acme')));
    expect(calls.charge + calls.hitStatements).toBeLessThanOrEqual(2);
    // In the order they came: the first ten are paid.
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      ...Array.from({ length: HIT_BALANCE }, () => 'fulfilled'),
      ...Array.from({ length: 32 - HIT_BALANCE }, () => 'rejected'),
    ]);
    expect((outcomes[HIT_BALANCE] as PromiseRejectedResult).reason).toMatchObject({ code: 'insufficient_credits' });
  } finally {
    await billing.close();
  }
});
