import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { projectRoot, testTopology } from './localStack';

/**
 * docs/reliability.md is generated from what the last runs of the fault, fuzz, address-policy and
 * load suites saw, not written by hand: each suite records its outcomes here as it runs, one file
 * per suite under data/reliability/, and the report names the run (commit, time, machine) each
 * figure comes from.
 */
export const RELIABILITY_DIR = path.join(projectRoot(), 'data', 'reliability');

/** One thing a suite tried and what came of it. */
export interface ReliabilityRow {
  /** What was done to the service: "kill -9 fetch worker", "gzip bomb", "DNS rebinding". */
  fault: string;
  /** The operation or path it hit: "Extract Markdown", "browser navigation". */
  target: string;
  /** What the client saw, in a few words: "completed, 1 charge", "400 invalid URL". */
  outcome: string;
  /** Whether the outcome is the one the suite requires. */
  ok: boolean;
  /** Counts and measures worth a column in the report: events seen, retries, peak RSS in MB. */
  figures?: Record<string, number | string>;
}

export interface ReliabilityRecord {
  suite: string;
  run: { commit: string; startedAt: string; topology: string; cores: number; loadAverage: number };
  rows: ReliabilityRow[];
}

/** This process's record of each suite it has written to. */
const records = new Map<string, ReliabilityRecord>();

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

/**
 * Appends rows to the suite's record. The first call of a process starts the record afresh, so a
 * file holds one run only; a suite name belongs to one test file or benchmark.
 */
export function recordReliability(suite: string, rows: ReliabilityRow[]): void {
  mkdirSync(RELIABILITY_DIR, { recursive: true });
  let record = records.get(suite);
  if (!record) {
    record = {
      suite,
      run: {
        commit: commit(),
        startedAt: new Date().toISOString(),
        topology: testTopology(),
        cores: os.cpus().length,
        loadAverage: Number((os.loadavg()[0] ?? 0).toFixed(1)),
      },
      rows: [],
    };
    records.set(suite, record);
  }
  record.rows.push(...rows);
  // Written whole each time, compact: a suite that fails halfway still leaves what it saw.
  writeFileSync(path.join(RELIABILITY_DIR, `${suite}.json`), `${JSON.stringify(record)}\n`);
}
