import { readdirSync, readFileSync } from 'node:fs';

/** What the benchmarks read of a process from Linux's /proc/<pid>/stat. */
export interface ProcStat {
  parent: number;
  /** The program's name, as the kernel keeps it (15 characters at most). */
  program: string;
  /** CPU ms it has used itself, user and system. */
  cpuMs: number;
  /** CPU ms of its children that ended and were reaped. */
  reapedCpuMs: number;
}

/** The kernel's clock ticks per second (USER_HZ), 100 on every Linux build we run. */
const TICKS_PER_SECOND = 100;

const ticksMs = (ticks: string | undefined): number => (Number(ticks) * 1000) / TICKS_PER_SECOND;

/** A process's stat; undefined once it is gone. */
export function procStat(pid: number | string): ProcStat | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The program name is in parentheses and may hold spaces or parentheses itself: fields are counted after it.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return {
    parent: Number(fields[1]),
    program: stat.slice(stat.indexOf('(') + 1, close),
    cpuMs: ticksMs(fields[11]) + ticksMs(fields[12]),
    reapedCpuMs: ticksMs(fields[13]) + ticksMs(fields[14]),
  };
}

/** Every process now alive, by id. */
export function processTable(): Map<number, ProcStat> {
  const table = new Map<number, ProcStat>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procStat(entry);
    if (stat) table.set(Number(entry), stat);
  }
  return table;
}
