import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time of a stack's processes, from Linux /proc: unlike latency, the machine's other load
 * does not inflate it. Each named process counts with what it started (a worker's Chromium).
 */

const TICK_MS = 10;

/** Each process's parent and CPU ms so far (user and system), from /proc/<pid>/stat. */
function processTable(): Map<number, { parent: number; cpuMs: number }> {
  const table = new Map<number, { parent: number; cpuMs: number }>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The program name is in parentheses and may hold spaces or parentheses itself.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // Fields 4, 14 and 15 of stat(5), counted from the state (field 3).
      table.set(Number(entry), {
        parent: Number(fields[1]),
        cpuMs: (Number(fields[11]) + Number(fields[12])) * TICK_MS,
      });
    } catch {
      // Gone already.
    }
  }
  return table;
}

/** CPU ms so far of each named process with its descendants. */
export function cpuByProcess(roots: Record<string, number | undefined>): Record<string, number> {
  const table = processTable();
  const nameOf = new Map<number, string>();
  for (const [name, pid] of Object.entries(roots)) if (pid) nameOf.set(pid, name);
  const totals: Record<string, number> = Object.fromEntries(Object.keys(roots).map((name) => [name, 0]));
  for (const [pid, { cpuMs }] of table) {
    // Walking up is bounded by the depth of the process tree.
    for (let up: number | undefined = pid; up && up > 1; up = table.get(up)?.parent) {
      const name = nameOf.get(up);
      if (name) {
        totals[name]! += cpuMs;
        break;
      }
    }
  }
  return totals;
}

/** The CPU ms each named process used between two readings. */
export function cpuBetween(before: Record<string, number>, after: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([name, ms]) => [name, ms - (before[name] ?? 0)]));
}
