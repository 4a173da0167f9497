import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { Pool } from 'pg';
import { ulid } from 'ulid';
import { projectRoot } from './localStack';
import { stackEnv } from './secondApi';

/**
 * The admin command (dist/src/admin/cli.js) against the shared stack's store, as an operator runs
 * it while the service runs: what the billing tests read the ledger and balances through.
 */

const run = promisify(execFile);
const CLI = path.join(projectRoot(), 'dist/src/admin/cli.js');

export async function admin(...args: string[]): Promise<string> {
  const { stdout } = await run(process.execPath, [CLI, ...args], { env: stackEnv() });
  return stdout;
}

export const adminJson = async <T>(...args: string[]): Promise<T> => JSON.parse(await admin(...args, '--json')) as T;

export interface LedgerEntry {
  kind: 'grant' | 'charge' | 'refund';
  amount: number;
  operation: string | null;
  runKey: string | null;
  note: string | null;
}

export interface Account {
  balance: number;
  /** Newest first. */
  ledger: LedgerEntry[];
}

export const account = (org: string): Promise<Account> => adminJson<Account>('credits', 'show', org);

/** A new organization (its name begins with `prefix`) with one key and `credits`. */
export async function newOrganization(prefix: string, credits: number): Promise<{ org: string; key: string }> {
  const org = `${prefix}-${ulid().toLowerCase()}`;
  await admin('org', 'create', org);
  const { key } = await adminJson<{ key: string }>('key', 'create', org);
  await admin('credits', 'grant', org, String(credits));
  return { org, key };
}

/**
 * The ledger of each run, oldest entry first: what the exactly-once promise is checked on (one
 * charge per run, at most one refund), with the grants left out.
 */
export function entriesByRun(ledger: LedgerEntry[]): Map<string, LedgerEntry[]> {
  const runs = new Map<string, LedgerEntry[]>();
  for (const entry of [...ledger].reverse()) {
    if (!entry.runKey) continue;
    runs.set(entry.runKey, [...(runs.get(entry.runKey) ?? []), entry]);
  }
  return runs;
}

/** The balance the ledger adds up to. */
export const ledgerSum = (ledger: LedgerEntry[]): number => ledger.reduce((sum, entry) => sum + entry.amount, 0);

/**
 * Whether a run's charge has been settled (refunded or kept): the admin command shows refunds
 * only, so a test that expects none asks the store itself when the question has been decided.
 */
export async function chargeSettled(runKey: string): Promise<boolean> {
  const pool = new Pool({ connectionString: stackEnv().DATABASE_URL, max: 1 });
  try {
    const { rows } = await pool.query<{ settled: boolean }>(
      `SELECT settled_at IS NOT NULL AS settled FROM ledger WHERE run_key = $1 AND kind = 'charge'`,
      [runKey],
    );
    return rows[0]?.settled ?? false;
  } finally {
    await pool.end();
  }
}
