import type { Page, Request } from 'playwright-core';

/** The page counts as settled once no request has been in flight for this long. */
const QUIET_MS = 200;
const POLL_MS = 20;

/**
 * The requests a page has in flight. Playwright's `networkidle` always waits 500 ms of silence
 * and cannot be asked again after a scroll; counting requests ourselves lets a render stop as
 * soon as the page is quiet, and wait after a scroll only when the scroll started loading.
 */
export class NetworkActivity {
  private readonly inFlight = new Set<Request>();
  private lastChange = Date.now();

  constructor(page: Page) {
    page.on('request', (request) => {
      this.inFlight.add(request);
      this.lastChange = Date.now();
    });
    const done = (request: Request) => {
      if (this.inFlight.delete(request)) this.lastChange = Date.now();
    };
    page.on('requestfinished', done);
    page.on('requestfailed', done);
  }

  get busy(): boolean {
    return this.inFlight.size > 0;
  }

  /** Resolves once the page has been quiet for `quietMs`, or at the deadline (a long poll never ends). */
  async quiet(deadline: number, quietMs = QUIET_MS): Promise<void> {
    while (Date.now() < deadline) {
      const idleFor = Date.now() - this.lastChange;
      if (this.inFlight.size === 0 && idleFor >= quietMs) return;
      const wait = this.inFlight.size === 0 ? quietMs - idleFor : POLL_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.min(wait, deadline - Date.now())));
    }
  }
}
