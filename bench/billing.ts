import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { ulid } from 'ulid';
import { runSettlement } from '../src/billing/settlement';
import { Store } from '../src/billing/store';
import { RequestCounter } from '../src/limits/requestCounter';
import { spawnChild, waitUntil, type Child } from '../src/stack/children';
import { freePort } from '../src/stack/ports';
import { testDataConverter } from '../test/support/payloadKeys';
import { startPostgresServer, type PostgresServer } from '../test/support/postgresServer';
import { startStack, stopStack, type Stack } from '../test/support/localStack';
import { articlePage, fmt, percentile, servePage } from './common';
import { procStat } from './procStat';

/**
 * `npm run bench:billing`: what authentication, the credit check, the charge and the settlement
 * add to a request. One stack (Temporal dev server, workers, an API with billing on) and a second
 * API beside it on the same Temporal, workers and cache with billing off (no DATABASE_URL): the
 * same requests go to both, in alternating rounds so the machine's other load falls on both alike.
 * Run on the embedded store (PGlite) and on a PostgreSQL server; BENCH_STORES picks
 * (`embedded,postgres`). Then the store's statements and Temporal's describe, timed one by one.
 * `--against DIR` adds a third API, billing on, from another build (DIR holds its
 * `src/api/main.js`, on this build's schema), in the same rounds: a change's before and after
 * from one run.
 */

const STORES = (process.env.BENCH_STORES ?? 'embedded,postgres').split(',').filter(Boolean);
/** What is sent: `run` (Extract Markdown at min, nocache) and `hit` (answered from the cache). */
const KINDS = (process.env.BENCH_KINDS ?? 'run,hit').split(',').filter(Boolean) as Kind[];
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
/**
 * Parallel requests per round and side. A hit takes ~1.5 ms of the API's CPU, so 64 of them at 16
 * were a tenth of a second, mostly the burst's start and end; 640 make a round of about a second,
 * as 64 runs do.
 */
const PARALLEL: Record<Kind, number> = {
  run: Number(process.env.BENCH_PARALLEL ?? 64),
  hit: Number(process.env.BENCH_PARALLEL ?? 640),
};
/** Requests per round and side, by concurrency. */
const perRound = (kind: Kind, concurrency: number): number =>
  concurrency === 1 ? Number(process.env.BENCH_SEQUENTIAL ?? 25) : PARALLEL[kind];
const STATEMENTS = 200;
const AGAINST = ((i) => (i >= 0 ? path.resolve(process.argv[i + 1] ?? '') : undefined))(
  process.argv.indexOf('--against'),
);
const TARGET_ADDED_MS = 5;
const TARGET_THROUGHPUT_LOSS = 0.05;

type Kind = 'run' | 'hit';
const BODY: Record<Kind, { effort: 'min'; nocache: boolean }> = {
  run: { effort: 'min', nocache: true },
  hit: { effort: 'min', nocache: false },
};

interface Side {
  /** `before`: the build of --against, billing on. */
  name: 'billed' | 'unbilled' | 'before';
  base: string;
  /**
   * The processes whose CPU time its requests cost, by name: its API, the stack's store (a
   * PostgreSQL server's every process), Temporal and workers.
   */
  processes: Record<string, number[]>;
}

/** CPU ms of each process, by name and then pid. */
const cpuOf = (processes: Record<string, number[]>): Record<string, number[]> =>
  Object.fromEntries(
    Object.entries(processes).map(([name, pids]) => [name, pids.map((pid) => procStat(pid)?.cpuMs ?? 0)]),
  );

/**
 * The CPU ms each name's processes used between two readings. A process gone by the second (a
 * PostgreSQL backend whose pooled connection was closed while idle) is left out, not counted as
 * having given its time back.
 */
const cpuUsed = (before: Record<string, number[]>, after: Record<string, number[]>): Record<string, number> =>
  Object.fromEntries(
    Object.entries(after).map(([name, ms]) => [
      name,
      ms.reduce((sum, now, i) => sum + (now > 0 ? now - (before[name]?.[i] ?? now) : 0), 0),
    ]),
  );

/** A PostgreSQL server's processes: its backends (the API's pooled connections among them) and its own workers. */
async function postgresPids(databaseUrl: string): Promise<number[]> {
  const store = await Store.open(databaseUrl, 1);
  try {
    const { rows } = await store.pool.query<{ pid: number }>('SELECT pid FROM pg_stat_activity');
    return rows.map((row) => row.pid);
  } finally {
    await store.close();
  }
}

interface Sample {
  latencies: number[];
  /** Requests not answered 200: a machine too loaded for its Temporal dev server shows here. */
  failed: number;
  seconds: number;
  /** CPU ms its processes used, by name: unlike latency, the machine's other load does not inflate it. */
  cpu: Record<string, number>;
}

/** A request's latency, or undefined when it was not answered 200 (counted, not timed). */
async function call(base: string, key: string, url: string, kind: Kind): Promise<number | undefined> {
  const started = performance.now();
  const response = await fetch(`${base}/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, ...BODY[kind] }),
  });
  await response.arrayBuffer();
  return response.status === 200 ? performance.now() - started : undefined;
}

async function batch(
  side: Side,
  key: string,
  url: string,
  kind: Kind,
  total: number,
  concurrency: number,
  into: Sample,
) {
  let next = 0;
  const cpuBefore = cpuOf(side.processes);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total) {
        next++;
        const ms = await call(side.base, key, url, kind);
        if (ms === undefined) into.failed++;
        else into.latencies.push(ms);
      }
    }),
  );
  into.seconds += (performance.now() - started) / 1000;
  for (const [name, ms] of Object.entries(cpuUsed(cpuBefore, cpuOf(side.processes))))
    into.cpu[name] = (into.cpu[name] ?? 0) + ms;
}

/** Every side, ROUNDS rounds each, the side going first taking turns. */
async function compare(sides: Side[], key: string, url: string, kind: Kind, concurrency: number) {
  const samples = new Map(
    sides.map((side) => [side.name, { latencies: [], failed: 0, seconds: 0, cpu: {} } as Sample]),
  );
  for (let round = 0; round < ROUNDS; round++) {
    const order = [...sides.slice(round % sides.length), ...sides.slice(0, round % sides.length)];
    for (const side of order)
      await batch(side, key, url, kind, perRound(kind, concurrency), concurrency, samples.get(side.name)!);
  }
  const stats = (sample: Sample) => {
    const sorted = [...sample.latencies].sort((a, b) => a - b);
    return {
      p50: percentile(sorted, 50),
      p95: percentile(sorted, 95),
      rps: sample.latencies.length / sample.seconds,
      cpuPerRequest: Object.fromEntries(
        Object.entries(sample.cpu).map(([name, ms]) => [name, ms / (sample.latencies.length + sample.failed)]),
      ),
      failed: sample.failed,
    };
  };
  return new Map([...samples].map(([name, sample]) => [name, stats(sample)]));
}

const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

async function timed(times: number, step: (i: number) => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await step(i);
    ms.push(performance.now() - started);
  }
  return median(ms);
}

/** Each piece of billing's work alone, from this process, at concurrency 1: medians in ms. */
async function pieces(stack: Stack, databaseUrl: string, finishedRun: string): Promise<string> {
  const store = await Store.open(databaseUrl, 1);
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: stack.namespace, dataConverter: testDataConverter });
  try {
    const prefix = `bench/${ulid()}`;
    const roundTrip = await timed(STATEMENTS, () => store.pool.query('SELECT 1'));
    const findKey = await timed(STATEMENTS, () => store.findKey(stack.apiKey));
    const counter = new RequestCounter({ kind: 'postgres', pool: store.pool }, `bench-${ulid()}`);
    const count = await timed(STATEMENTS, () => counter.count('test-org', 1_000_000));
    const hitCharge = await timed(STATEMENTS, (i) => store.chargeCacheHits('test-org', 1, [`${prefix}/hit/${i}`]));
    const window = { key: `bench-${ulid()}:test-org`, limit: 1_000_000, windowMs: 60_000 };
    const countedHit = await timed(STATEMENTS, (i) =>
      store.countAndChargeCacheHits('test-org', 1, [`${prefix}/counted-hit/${i}`], window),
    );
    const charge = await timed(STATEMENTS, (i) =>
      store.charge({
        organization: 'test-org',
        runKey: `${prefix}/${i}`,
        operation: 'bench',
        amount: 1,
        expiresAt: new Date(Date.now() + 60_000),
      }),
    );
    const settle = await timed(STATEMENTS, (i) => store.settle(`${prefix}/${i}`, true, 'bench'));
    const describe = await timed(STATEMENTS, () => runSettlement(client, finishedRun));
    return (
      `  alone, p50: round trip (SELECT 1) ${fmt(roundTrip)} ms, key lookup ${fmt(findKey)} ms, ` +
      `request count ${fmt(count)} ms, cache-hit charge ${fmt(hitCharge)} ms, both in one statement ${fmt(countedHit)} ms, charge ${fmt(charge)} ms, settle ${fmt(settle)} ms, ` +
      `Temporal describe of an ended run ${fmt(describe)} ms`
    );
  } finally {
    await connection.close();
    await store.close();
  }
}

/** Another API on the stack's Temporal, workers and cache: `distDir`'s build, with `env` over the stack's. */
async function startApi(
  stack: Stack,
  name: string,
  distDir: string,
  env: Record<string, string>,
): Promise<{ child: Child; base: string }> {
  const port = await freePort();
  // Its last lines, to say why it did not start.
  const lines: string[] = [];
  const child = spawnChild(name, process.execPath, [path.join(distDir, 'src', 'api', 'main.js')], {
    env: { ...stack.env, ...env, PORT: String(port) },
    onLine: (line) => lines.push(line) > 20 && lines.shift(),
  });
  const root = `http://127.0.0.1:${port}`;
  await waitUntil(name, child, async () => (await fetch(`${root}/healthz`)).ok, 60_000).catch((err: unknown) => {
    throw new Error(`${String(err)}; its last lines:\n${lines.join('\n')}`);
  });
  return { child, base: `${root}/v1` };
}

async function benchStore(storeName: string, url: string): Promise<boolean> {
  let postgres: PostgresServer | undefined;
  if (storeName === 'postgres') postgres = await startPostgresServer();
  else if (storeName !== 'embedded') throw new Error(`BENCH_STORES: unknown store ${storeName}`);
  const logs = path.resolve(__dirname, '..', '..', 'data', 'bench-logs', `billing-${storeName}`);
  // Hits stay hits for the whole run: the stack's own TTL of 3 s would turn some into runs.
  const stack = await startStack(logs, {
    LOG_LEVEL: 'warn',
    CACHE_TTL_SECONDS: '3600',
    ...(postgres && { DATABASE_URL: postgres.url }),
  });
  const extra: Child[] = [];
  try {
    const unbilled = await startApi(stack, 'api-unbilled', path.join(__dirname, '..'), { DATABASE_URL: '' });
    extra.push(unbilled.child);
    const before = AGAINST && (await startApi(stack, 'api-before', AGAINST, {}));
    if (before) extra.push(before.child);
    const shared: Record<string, number[]> = Object.fromEntries(
      Object.entries(stack.pids).flatMap(([name, pid]) => (name !== 'api' && pid !== undefined ? [[name, [pid]]] : [])),
    );
    const sides: Side[] = [
      { name: 'billed', base: stack.apiUrl, processes: { ...shared, api: [stack.pids.api!] } },
      { name: 'unbilled', base: unbilled.base, processes: { ...shared, api: [unbilled.child.process.pid!] } },
      ...(before
        ? [{ name: 'before', base: before.base, processes: { ...shared, api: [before.child.process.pid!] } } as Side]
        : []),
    ];
    // Warm both: connections, the key cache, the JIT, the page in the cache.
    for (const side of sides)
      for (const kind of ['run', 'hit'] as const) await batch(side, stack.apiKey, url, kind, 40, 4, emptySample());
    // After the warm-up, so the API's pooled connections are among them.
    if (postgres) for (const side of sides) side.processes.store = await postgresPids(postgres.url);
    console.log(
      `store: ${storeName}; ${ROUNDS} rounds a side, taking turns${AGAINST ? `; "before": the API of ${AGAINST}` : ''}`,
    );
    let met = true;
    for (const kind of KINDS) {
      const label = kind === 'run' ? 'Extract Markdown min, a run' : 'Extract Markdown, a cache hit';
      for (const concurrency of [1, 32]) {
        const results = await compare(sides, stack.apiKey, url, kind, concurrency);
        const off = results.get('unbilled')!;
        for (const on of ['billed', 'before'] as const) {
          const billed = results.get(on);
          if (!billed) continue;
          const added = billed.p50 - off.p50;
          if (on === 'billed' && added >= TARGET_ADDED_MS) met = false;
          console.log(
            `  ${label}, c${concurrency}${sideLabel(on)}: off p50 ${fmt(off.p50)} p95 ${fmt(off.p95)} ms; ` +
              `on p50 ${fmt(billed.p50)} p95 ${fmt(billed.p95)} ms; added p50 ${fmt(added)} ms ` +
              `(x${(billed.p50 / off.p50).toFixed(2)}), p95 ${fmt(billed.p95 - off.p95)} ms (x${(billed.p95 / off.p95).toFixed(2)})` +
              failures(billed.failed + off.failed),
          );
        }
      }
      const results = await compare(sides, stack.apiKey, url, kind, 16);
      const off = results.get('unbilled')!;
      for (const on of ['billed', 'before'] as const) {
        const billed = results.get(on);
        if (!billed) continue;
        const loss = 1 - billed.rps / off.rps;
        if (on === 'billed' && loss > TARGET_THROUGHPUT_LOSS) met = false;
        console.log(
          `  ${label}, c16${sideLabel(on)}: off ${fmt(off.rps)} req/s; on ${fmt(billed.rps)} req/s (${loss >= 0 ? '-' : '+'}${fmt(Math.abs(loss) * 100)}%); ` +
            `CPU ms per request off ${fmt(total(off.cpuPerRequest))}, on ${fmt(total(billed.cpuPerRequest))} ` +
            `(${Object.keys(billed.cpuPerRequest)
              .map((name) => `${name} ${fmt(off.cpuPerRequest[name] ?? 0)} -> ${fmt(billed.cpuPerRequest[name] ?? 0)}`)
              .join(', ')})` +
            failures(billed.failed + off.failed),
        );
      }
    }
    const finished = await fetch(`${stack.apiUrl}/extract/markdown`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, ...BODY.run }),
    });
    console.log(await pieces(stack, stack.env.DATABASE_URL!, finished.headers.get('x-workflow-id')!));
    return met;
  } finally {
    for (const child of extra) await child.stop();
    await stopStack(stack);
    await postgres?.stop();
  }
}

/** Which billed API a line is about, when --against runs two. */
const sideLabel = (name: 'billed' | 'before'): string =>
  AGAINST ? (name === 'before' ? ' [before]' : ' [after]') : '';

const total = (byProcess: Record<string, number>): number => Object.values(byProcess).reduce((a, b) => a + b, 0);

const failures = (count: number): string => (count > 0 ? `; ${count} not answered 200` : '');

const emptySample = (): Sample => ({ latencies: [], failed: 0, seconds: 0, cpu: {} });

async function main(): Promise<void> {
  const { url, close } = await servePage(articlePage());
  try {
    const verdicts: string[] = [];
    for (const store of STORES) verdicts.push(`${store} ${(await benchStore(store, url)) ? 'met' : 'missed'}`);
    console.log(
      `targets (p50 added < ${TARGET_ADDED_MS} ms at c1 and c32, c16 throughput loss <= ${TARGET_THROUGHPUT_LOSS * 100}%): ${verdicts.join('; ')}`,
    );
  } finally {
    close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
