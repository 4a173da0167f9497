import { readFileSync } from 'node:fs';

/**
 * CPU time of a stack's processes while a benchmark phase runs, from Linux /proc: unlike
 * latency, the machine's other load does not inflate it, so it says which process a phase
 * saturates on a shared machine.
 */

const TICKS_PER_SECOND = 100;

/** CPU ms a process (all its threads) has used, user and system; 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The program name is in parentheses and may hold spaces; utime and stime follow it.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

export interface CpuSplit {
  /** CPU ms per request, by process name. */
  perRequest: Record<string, number>;
  /** Cores each process kept busy on average over the phase. */
  cores: Record<string, number>;
}

/**
 * Runs `phase` and splits the CPU its processes used over its `requests`. `this benchmark` is
 * the benchmark's own process: the clients, the page server and the stand-ins.
 */
export async function cpuDuring<T>(
  pids: Record<string, number | undefined>,
  requests: (result: T) => number,
  phase: () => Promise<T>,
): Promise<{ result: T; cpu: CpuSplit }> {
  const named = Object.entries(pids).filter((entry): entry is [string, number] => entry[1] !== undefined);
  const before = named.map(([, pid]) => cpuMs(pid));
  const ownBefore = process.cpuUsage();
  const started = performance.now();
  const result = await phase();
  const wallMs = performance.now() - started;
  const own = process.cpuUsage(ownBefore);
  const used: Record<string, number> = Object.fromEntries(
    named.map(([name, pid], i) => [name, Math.max(0, cpuMs(pid) - before[i]!)]),
  );
  used['this benchmark'] = (own.user + own.system) / 1000;
  const count = requests(result);
  return {
    result,
    cpu: {
      perRequest: Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms / count])),
      cores: Object.fromEntries(Object.entries(used).map(([name, ms]) => [name, ms / wallMs])),
    },
  };
}
