import { readFileSync } from 'node:fs';
import { Client } from 'pg';
import type { Stack } from '../test/support/localStack';
import { processTable } from './procStat';

/**
 * What requests cost a stack, in figures the machine's other load inflates far less than latency.
 * First the CPU time its processes spend, by kind, from Linux /proc. A kind is a process the stack
 * started with everything it starts in turn (PostgreSQL's backends, Chromium), its replicas
 * together ('api-1' and 'api-2' are 'api'). A process's ended and reaped children are in its
 * cutime and cstime, so a backend or a renderer that came and went between two readings still
 * counts, with its parent's kind.
 */

const BENCH_KIND = 'bench (stand-ins, client)';
/**
 * A PostgreSQL backend sets its title to `postgres: <user> <database> <host>(<port>) <state>`: its
 * database tells Temporal's persistence (temporal, temporal_visibility) from the service's own.
 */
const BACKEND_TITLE = /^postgres: \S+ (\S+) (?:\S+\(\d+\)|\[local\])/;

/** `postgres` split by the database its backends serve; its own processes (and ended backends) stay `postgres`. */
function postgresKind(pid: number): string {
  try {
    const database = BACKEND_TITLE.exec(readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' '))?.[1];
    return database ? `postgres ${database}` : 'postgres';
  } catch {
    return 'postgres';
  }
}

/** CPU ms so far by kind of every process of the stack (as it is now: a restarted process has a new id). */
function readCpu(stack: Stack): Map<string, number> {
  const kindOf = new Map<number, string>();
  // A stack an older build started (bench:markdown --against) may know only the ids it started with.
  const pids = stack.currentPids?.() ?? stack.pids;
  for (const [name, pid] of Object.entries(pids)) if (pid) kindOf.set(pid, name.replace(/-\d+$/, ''));
  const table = processTable();
  const byKind = new Map<string, number>();
  for (const [pid, { cpuMs, reapedCpuMs }] of table) {
    let kind: string | undefined;
    // Walking up is bounded by the depth of the process tree.
    for (let at: number | undefined = pid; at && at > 1 && !kind; at = table.get(at)?.parent) kind = kindOf.get(at);
    if (kind === 'postgres') kind = postgresKind(pid);
    if (kind) byKind.set(kind, (byKind.get(kind) ?? 0) + cpuMs + reapedCpuMs);
  }
  const own = process.cpuUsage();
  byKind.set(BENCH_KIND, (own.user + own.system) / 1000);
  return byKind;
}

/**
 * Bytes written to the write-ahead log of the cluster's PostgreSQL so far: every write of Temporal's
 * persistence (and of the service's own database, on the same server) passes through it, so it is
 * what one primary must absorb. Exact at once, unlike pg_stat_database's counters, which backends
 * report up to seconds late. The dev stack has no such server.
 */
async function walBytes(stack: Stack): Promise<number | undefined> {
  if (stack.topology !== 'cluster') return undefined;
  const client = new Client({ connectionString: stack.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ bytes: string }>(
      "SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint::text AS bytes",
    );
    return Number(rows[0]!.bytes);
  } finally {
    await client.end();
  }
}

export interface StackCost {
  /** CPU ms by kind. */
  cpu: Map<string, number>;
  /** On the cluster: bytes of PostgreSQL's write-ahead log. */
  walBytes?: number;
}

/** Starts counting; the returned function gives what the stack spent since. */
export async function costMeter(stack: Stack): Promise<() => Promise<StackCost>> {
  const walBefore = await walBytes(stack);
  const cpuBefore = readCpu(stack);
  return async () => {
    const cpu = new Map<string, number>();
    for (const [kind, ms] of readCpu(stack)) cpu.set(kind, ms - (cpuBefore.get(kind) ?? 0));
    const walAfter = await walBytes(stack);
    return { cpu, walBytes: walAfter === undefined ? undefined : walAfter - (walBefore ?? walAfter) };
  };
}

/** Per request: the stack's CPU ms and each kind's, largest first (the bench's own process apart), and the WAL. */
export function perRequest(cost: StackCost, requests: number): string {
  const kinds = [...cost.cpu].filter(([kind]) => kind !== BENCH_KIND).sort(([, a], [, b]) => b - a);
  const stack = kinds.reduce((sum, [, ms]) => sum + ms, 0);
  const each = kinds.map(([kind, ms]) => `${kind} ${(ms / requests).toFixed(1)}`).join(', ');
  const own = ((cost.cpu.get(BENCH_KIND) ?? 0) / requests).toFixed(1);
  const wal = cost.walBytes === undefined ? '' : `; PostgreSQL WAL ${(cost.walBytes / requests / 1024).toFixed(1)} KB`;
  return `CPU ${(stack / requests).toFixed(1)} ms (${each}; ${BENCH_KIND} ${own})${wal}`;
}

export interface CpuSplit {
  /** CPU ms per request, by kind (the benchmark's own process too). */
  perRequest: Record<string, number>;
  /** Cores each kind kept busy on average over the phase. */
  cores: Record<string, number>;
}

/** Runs `phase` and splits the CPU the stack's processes used over its `requests`. */
export async function cpuDuring<T>(
  stack: Stack,
  requests: (result: T) => number,
  phase: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSplit }> {
  const cost = await costMeter(stack);
  const started = performance.now();
  const result = await phase();
  const wallMs = performance.now() - started;
  const used = [...(await cost()).cpu];
  const count = requests(result);
  return {
    result,
    cpu: {
      perRequest: Object.fromEntries(used.map(([kind, ms]) => [kind, ms / count])),
      cores: Object.fromEntries(used.map(([kind, ms]) => [kind, ms / wallMs])),
    },
  };
}
