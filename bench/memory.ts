import { readFileSync, writeFileSync } from 'node:fs';
import { processTable } from './procStat';

/**
 * Peak resident memory of a stack's processes while a benchmark runs, from Linux /proc. Each
 * process the stack started is a kind of its own; what they start in turn (Chromium under the
 * browser worker) is a kind per parent and program, since there are several and they come and go.
 */

export interface KindPeak {
  /** The largest one process of the kind reached, in MB. */
  process: number;
  /** The largest sum over the kind's processes at one sample, in MB. */
  total: number;
  /** The most processes of the kind seen at once. */
  count: number;
}

const BENCH_KIND = 'bench (stand-ins, client)';

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    // The process ended between the listing and the read.
    return 0;
  }
}

/** The kind of every descendant of the named processes. */
function descendants(roots: Record<string, number | undefined>): Map<number, string> {
  const table = processTable();
  const kinds = new Map<number, string>();
  const rootOf = new Map<number, string>();
  for (const [name, pid] of Object.entries(roots)) if (pid) rootOf.set(pid, name);
  for (const [pid, { program }] of table) {
    // Walking up is bounded by the depth of the process tree.
    for (let up = table.get(pid)?.parent; up && up > 1; up = table.get(up)?.parent) {
      const root = rootOf.get(up);
      if (root) {
        kinds.set(pid, `${root} > ${program}`);
        break;
      }
    }
  }
  return kinds;
}

/**
 * Samples every `intervalMs` until the returned function is called; it gives the peaks by kind.
 * The kernel's high-water mark (VmHWM, reset at the start) catches a process's peaks between
 * samples; the totals are what one sample saw.
 */
export function watchMemory(
  roots: Record<string, number | undefined>,
  intervalMs = 250,
): () => Record<string, KindPeak> {
  const peaks: Record<string, KindPeak> = {};
  let kinds = new Map<number, string>();
  const find = () => {
    kinds = descendants(roots);
    for (const [name, pid] of Object.entries(roots)) if (pid) kinds.set(pid, name);
  };
  const sample = () => {
    const totals = new Map<string, { sum: number; count: number; largest: number }>();
    const add = (kind: string, rssKb: number, hwmKb: number) => {
      const now = totals.get(kind) ?? { sum: 0, count: 0, largest: 0 };
      totals.set(kind, { sum: now.sum + rssKb, count: now.count + 1, largest: Math.max(now.largest, rssKb, hwmKb) });
    };
    for (const [pid, kind] of kinds) {
      const rss = statusKb(pid, 'VmRSS');
      if (rss) add(kind, rss, statusKb(pid, 'VmHWM'));
    }
    const own = process.memoryUsage().rss / 1024;
    add(BENCH_KIND, own, own);
    for (const [kind, { sum, count, largest }] of totals) {
      const peak = peaks[kind] ?? { process: 0, total: 0, count: 0 };
      peaks[kind] = {
        process: Math.max(peak.process, largest / 1024),
        total: Math.max(peak.total, sum / 1024),
        count: Math.max(peak.count, count),
      };
    }
  };
  find();
  // The high-water marks of the processes running now count from here; later ones' from their start.
  for (const pid of kinds.keys()) {
    try {
      writeFileSync(`/proc/${pid}/clear_refs`, '5');
    } catch {
      // Gone already.
    }
  }
  sample();
  let ticks = 0;
  // Reading all of /proc each sample would cost more than the sampling; a new process is found within a second.
  const rescanEvery = Math.max(1, Math.round(1000 / intervalMs));
  const timer = setInterval(() => {
    if (++ticks % rescanEvery === 0) find();
    sample();
  }, intervalMs);
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

/** One line per kind, largest first. */
export function memoryLines(peaks: Record<string, KindPeak>): string[] {
  return Object.entries(peaks)
    .sort(([, a], [, b]) => b.total - a.total)
    .map(
      ([kind, peak]) =>
        `${kind.padEnd(40)} ${peak.process.toFixed(1).padStart(8)} MB` +
        (peak.count > 1 ? `  (${peak.count} at once, ${peak.total.toFixed(1)} MB together)` : ''),
    );
}
