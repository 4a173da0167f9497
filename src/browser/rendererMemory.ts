import { readdirSync, readFileSync } from 'node:fs';

/** How often each renderer's memory is read: a page allocating fast overshoots by what it allocates in this time. */
const SAMPLE_MS = 250;
/** How often the process table is read for new renderers: a new page goes unwatched at most this long. */
const SCAN_MS = 1_000;

/** A file of /proc, or undefined once its process is gone. */
function procFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return undefined;
  }
}

/**
 * Parent of each process, from `/proc/<pid>/stat` (whose second field, the name, may hold spaces
 * and parentheses). Read synchronously: a scan blocks for a millisecond or two, where the same
 * reads through the thread pool cost ten times the CPU.
 */
function parents(): Map<number, number> {
  const parentOf = new Map<number, number>();
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = procFile(`/proc/${pid}/stat`);
    if (stat === undefined) continue;
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (Number.isInteger(ppid)) parentOf.set(Number(pid), ppid);
  }
  return parentOf;
}

/**
 * Whether the process's command line has `argument`. Chromium's forked children rewrite theirs
 * into one string (arguments apart by spaces, not NULs), so both count as separators.
 */
function hasArgument(pid: number, argument: string): boolean {
  return (procFile(`/proc/${pid}/cmdline`) ?? '').split(/[\0 ]/).includes(argument);
}

/** Resident memory of a process in bytes; undefined once it is gone. */
function residentBytes(pid: number): number | undefined {
  const kb = procFile(`/proc/${pid}/status`)?.match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

/**
 * Ends any renderer of one Chromium whose resident memory passes `maxBytes`. Chromium caps a
 * renderer's JavaScript heap itself (`--max-old-space-size`), but not the array buffers, images
 * and DOM a page can pile up besides; killed, the renderer's pages crash, and their owner (a
 * session, a render) learns it from Playwright's `crash` event. The browser is found among this
 * process's descendants by `marker`, a switch on its command line; its renderers (each browser
 * context has its own) by their `--type=renderer`. Linux only: elsewhere it watches nothing.
 */
export class RendererMemoryWatch {
  private readonly renderers = new Set<number>();
  private browserPid?: number;
  private lastScan = 0;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly marker: string,
    private readonly maxBytes: number,
  ) {}

  start(): void {
    this.timer = setInterval(() => this.tick(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private tick(): void {
    try {
      if (Date.now() - this.lastScan >= SCAN_MS) this.scan();
      for (const pid of this.renderers) {
        const bytes = residentBytes(pid);
        if (bytes === undefined) this.renderers.delete(pid);
        else if (bytes > this.maxBytes) {
          this.renderers.delete(pid);
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // It ended by itself meanwhile.
          }
        }
      }
    } catch {
      // No /proc (not Linux): the renderers' heap cap is all there is.
      this.stop();
    }
  }

  /** Kills the browser itself, when it is found: it does not answer, so it cannot be asked to close. */
  killBrowser(): void {
    try {
      this.scan();
    } catch {
      // No /proc: the browser cannot be found.
    }
    if (this.browserPid === undefined) return;
    try {
      process.kill(this.browserPid, 'SIGKILL');
    } catch {
      // It ended by itself meanwhile.
    }
  }

  private scan(): void {
    this.lastScan = Date.now();
    const childrenOf = new Map<number, number[]>();
    const parentOf = parents();
    for (const [pid, ppid] of parentOf) childrenOf.set(ppid, [...(childrenOf.get(ppid) ?? []), pid]);
    const descendants = (root: number): number[] => {
      const found: number[] = [];
      for (let next = [root]; next.length > 0;) {
        next = next.flatMap((pid) => childrenOf.get(pid) ?? []);
        found.push(...next);
      }
      return found;
    };
    if (this.browserPid === undefined || !parentOf.has(this.browserPid))
      this.browserPid = descendants(process.pid).find((pid) => hasArgument(pid, this.marker));
    if (this.browserPid === undefined) return;
    for (const pid of descendants(this.browserPid))
      if (!this.renderers.has(pid) && hasArgument(pid, '--type=renderer')) this.renderers.add(pid);
  }
}
