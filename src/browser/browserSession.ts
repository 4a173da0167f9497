import type { BrowserContext, Page, Request, Route } from 'playwright-core';
import type { FirewallRules } from '../operations/automate';
import { navigationVerdict, type GuardedSession } from './actionFirewall';
import type { ProxySession } from './guardProxy';
import { NetworkActivity } from './networkActivity';
import { SecretValues } from './secretValues';

/**
 * One Automate task's browser: its own context (cookies and storage of no other task), its
 * guard-proxy session, and the page the agent is on. A page the agent's click opened (a
 * `target=_blank` link, a popup) becomes the current page, as it would for a person; when it
 * closes, the agent is back on the page before it.
 */
export class BrowserSession implements GuardedSession {
  private current: Page;
  private readonly network = new WeakMap<Page, NetworkActivity>();
  private readonly navigating = new WeakMap<Page, Set<Request>>();
  /** Main-frame navigations committed, in any of the session's pages, and page switches. */
  private documentCount = 0;
  /** Steps run one at a time: a retried step must not act while the attempt it replaces still does. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Forms the caller's own answers went into (see `formKey`): their submission has the caller's consent. */
  readonly consentedForms = new Set<string>();
  /** Values typed here that the model must not read back from the page. */
  readonly secrets = new SecretValues();
  /** The task's firewall as its latest step gave it: it judges every navigation of the session. */
  firewall?: FirewallRules;
  /** Why each navigation the firewall stopped was stopped, in order. */
  readonly refusedNavigations: string[] = [];

  /** `crashed` hears when a page's renderer died (out of memory, or ended past its limit): the session is unusable. */
  constructor(
    readonly id: string,
    readonly context: BrowserContext,
    readonly proxy: ProxySession,
    page: Page,
    private readonly crashed: () => void = () => undefined,
  ) {
    this.current = page;
    this.track(page);
    context.on('page', (opened) => {
      this.track(opened);
      this.current = opened;
      this.documentCount++;
    });
  }

  private track(page: Page): void {
    this.network.set(page, new NetworkActivity(page));
    const pending = new Set<Request>();
    this.navigating.set(page, pending);
    page.on('request', (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) pending.add(request);
    });
    page.on('crash', () => this.crashed());
    page.on('requestfinished', (request) => pending.delete(request));
    page.on('requestfailed', (request) => pending.delete(request));
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) {
        pending.clear();
        this.documentCount++;
      }
    });
    page.on('close', () => {
      if (this.current !== page) return;
      const open = this.context.pages();
      const previous = open[open.length - 1];
      if (previous) {
        this.current = previous;
        this.documentCount++;
      }
    });
  }

  /**
   * Lets a request of the session's pages go on unless it is a navigation the firewall refuses
   * (see navigationVerdict). The context routes every request here.
   */
  async guard(route: Route, request: Request): Promise<void> {
    const verdict = navigationVerdict(this, request);
    // The page may have closed while its request waited: there is nothing left to let through or stop.
    if (verdict.allowed) return route.fallback().catch(() => undefined);
    this.refusedNavigations.push(verdict.reason);
    // Aborted, as a 204 would: the page stays as it was instead of becoming Chromium's error page.
    return route.abort('aborted').catch(() => undefined);
  }

  /** The page the agent is on; a new blank one if the page closed itself and no other is open. */
  async page(): Promise<Page> {
    if (this.current.isClosed()) {
      const page = await this.context.newPage();
      this.current = page;
      this.documentCount++;
    }
    return this.current;
  }

  get documents(): number {
    return this.documentCount;
  }

  /** A navigation of the current page has started and not yet committed or failed. */
  navigationPending(): boolean {
    return (this.navigating.get(this.current)?.size ?? 0) > 0;
  }

  networkOf(page: Page): NetworkActivity {
    return this.network.get(page)!;
  }

  /** Runs `work` after every step before it has finished. */
  serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  async close(): Promise<void> {
    try {
      await this.context.close();
    } finally {
      this.proxy.end();
    }
  }
}
