import { readdir, readFile } from 'node:fs/promises';

/** How often each renderer's memory is read: a page allocating fast overshoots by what it allocates in this time. */
const SAMPLE_MS = 250;
/** How often the process table is read for new renderers: a new page goes unwatched at most this long. */
const SCAN_MS = 1_000;

/** Parent of each process, from `/proc/<pid>/stat` (whose second field, the name, may hold spaces and parentheses). */
async function parents(): Promise<Map<number, number>> {
  const pids = (await readdir('/proc')).filter((name) => /^\d+$/.test(name));
  const parentOf = new Map<number, number>();
  await Promise.all(
    pids.map(async (pid) => {
      const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
      if (stat === undefined) return;
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (Number.isInteger(ppid)) parentOf.set(Number(pid), ppid);
    }),
  );
  return parentOf;
}

/**
 * Whether the process's command line has `argument`. Chromium's forked children rewrite theirs
 * into one string (arguments apart by spaces, not NULs), so both count as separators.
 */
async function hasArgument(pid: number, argument: string): Promise<boolean> {
  const raw = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '');
  return raw.split(/[\0 ]/).includes(argument);
}

/** Resident memory of a process in bytes; undefined once it is gone. */
async function residentBytes(pid: number): Promise<number | undefined> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = status?.match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
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
  private ticking = false;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly marker: string,
    private readonly maxBytes: number,
    private readonly onKilled: (pid: number, bytes: number) => void = () => undefined,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.tick(), SAMPLE_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async tick(): Promise<void> {
    if (this.ticking) return;
    this.ticking = true;
    try {
      if (Date.now() - this.lastScan >= SCAN_MS) await this.scan();
      for (const pid of this.renderers) {
        const bytes = await residentBytes(pid);
        if (bytes === undefined) this.renderers.delete(pid);
        else if (bytes > this.maxBytes) {
          this.renderers.delete(pid);
          try {
            process.kill(pid, 'SIGKILL');
          } catch {
            // It ended by itself meanwhile.
          }
          this.onKilled(pid, bytes);
        }
      }
    } catch {
      // No /proc (not Linux): the renderers' heap cap is all there is.
      this.stop();
    } finally {
      this.ticking = false;
    }
  }

  private async scan(): Promise<void> {
    this.lastScan = Date.now();
    const parentOf = await parents();
    const childrenOf = new Map<number, number[]>();
    for (const [pid, ppid] of parentOf) childrenOf.set(ppid, [...(childrenOf.get(ppid) ?? []), pid]);
    const descendants = (root: number): number[] => {
      const found: number[] = [];
      for (let next = [root]; next.length > 0;) {
        next = next.flatMap((pid) => childrenOf.get(pid) ?? []);
        found.push(...next);
      }
      return found;
    };
    if (this.browserPid === undefined || !parentOf.has(this.browserPid)) {
      this.browserPid = undefined;
      for (const pid of descendants(process.pid))
        if (await hasArgument(pid, this.marker)) {
          this.browserPid = pid;
          break;
        }
    }
    if (this.browserPid === undefined) return;
    for (const pid of descendants(this.browserPid))
      if (!this.renderers.has(pid) && (await hasArgument(pid, '--type=renderer'))) this.renderers.add(pid);
  }
}
