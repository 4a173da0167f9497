/**
 * A refused open is remembered this long: its task asks again within a few seconds (the
 * workflow's poll backs off to 5 s), so one not seen for longer has given up or gone to
 * another worker, and no longer holds a place in the line.
 */
export const WAITER_FRESH_MS = 20_000;

interface Waiter {
  organization: string;
  seen: number;
}

/**
 * Who gets a browser worker's free session slots when tasks wait for one: fair shares across
 * organizations, so one organization's many tasks cannot take every slot that frees while
 * another's task waits. Each free slot goes to the waiting task whose organization holds the
 * fewest sessions here (counting the slots already handed out this way), the longest waiting
 * first among equals. Sessions already held are never taken back.
 */
export class SessionAdmission {
  /** Tasks refused and still asking, in the order they first asked (a Map keeps insertion order). */
  private readonly waiting = new Map<string, Waiter>();

  constructor(
    private readonly limit: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** How many refused tasks are still waiting for a slot here. */
  get waiters(): number {
    this.forgetStale(this.now());
    return this.waiting.size;
  }

  /**
   * Whether the session `id` of `organization` may open now, given the organizations of the
   * sessions held (one entry per session). A refused one keeps its place while it asks again.
   */
  admit(id: string, organization: string, held: readonly string[]): boolean {
    const now = this.now();
    this.forgetStale(now);
    const self = this.waiting.get(id);
    if (self) self.seen = now;
    else this.waiting.set(id, { organization, seen: now });
    const holding = new Map<string, number>();
    for (const owner of held) holding.set(owner, (holding.get(owner) ?? 0) + 1);
    const handedOut = new Set<string>();
    for (let free = this.limit - held.length; free > 0; free--) {
      let next: string | undefined;
      let fewest = Infinity;
      for (const [waiterId, waiter] of this.waiting) {
        const count = holding.get(waiter.organization) ?? 0;
        if (!handedOut.has(waiterId) && count < fewest) {
          next = waiterId;
          fewest = count;
        }
      }
      if (next === undefined) break;
      if (next === id) {
        this.waiting.delete(id);
        return true;
      }
      handedOut.add(next);
      const owner = this.waiting.get(next)!.organization;
      holding.set(owner, (holding.get(owner) ?? 0) + 1);
    }
    return false;
  }

  private forgetStale(now: number): void {
    for (const [id, waiter] of this.waiting) if (now - waiter.seen > WAITER_FRESH_MS) this.waiting.delete(id);
  }
}
