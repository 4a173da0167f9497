import type { BrowserPool } from './browserPool';
import { BrowserSession } from './browserSession';
import type { GuardProxy } from './guardProxy';
import { SessionAdmission } from './sessionAdmission';

/** The session is not (or no longer) held here: the worker restarted, reaped it, or its browser crashed. */
export class SessionLostError extends Error {}

/** This worker has no slot for the session now (all held, or promised to tasks ahead in line): ask again later. */
export class SessionsFullError extends Error {}

export interface SessionOptions {
  /** Whose task it is: free slots are shared fairly among the organizations waiting for one. */
  organization: string;
  /** The operator's proxy for the task's country, if any. */
  upstreamProxyUrl?: string;
  userAgent: string;
  /** Closed when no step used it for this long. */
  idleMs: number;
}

interface Entry {
  id: string;
  organization: string;
  opening: Promise<BrowserSession>;
  idleMs: number;
  /** Steps under way: a session in use is never reaped. */
  busy: number;
  idleTimer?: NodeJS.Timeout;
  closing?: Promise<void>;
}

/** A page of 1280 by 800 CSS pixels: what most sites lay out for a laptop. */
const VIEWPORT = { width: 1280, height: 800 };

/**
 * The Automate sessions one browser worker holds, by session id: at most `limit` at once, each
 * closed by `close`, by `closeAll` at shutdown, or once idle for its `idleMs`. Opening is
 * idempotent: a retried open of a session held here answers with the same session. When tasks
 * wait for a slot, the slots that free go to them by fair shares across organizations
 * (SessionAdmission).
 */
export class BrowserSessions {
  private readonly entries = new Map<string, Entry>();
  private readonly admission: SessionAdmission;

  constructor(
    private readonly pool: BrowserPool,
    private readonly proxy: GuardProxy,
    private readonly limit: number,
  ) {
    this.admission = new SessionAdmission(limit);
  }

  get size(): number {
    return this.entries.size;
  }

  holds(id: string): boolean {
    return this.entries.has(id);
  }

  /**
   * The session `id`, opened and readied by `prepare` (its first navigation) when this worker does
   * not hold it yet. A retried open waits for the same opening rather than starting another; an
   * opening that failed is closed and forgotten, so the next attempt starts over.
   */
  async open(
    id: string,
    options: SessionOptions,
    prepare: (session: BrowserSession) => Promise<void>,
  ): Promise<BrowserSession> {
    const held = this.entries.get(id);
    if (held && !held.closing) return this.using(held, () => held.opening);
    const owners = [...this.entries.values()].map((entry) => entry.organization);
    if (!this.admission.admit(id, options.organization, owners))
      throw new SessionsFullError(
        owners.length >= this.limit
          ? `this browser worker already holds ${this.limit} sessions`
          : 'the free sessions of this browser worker go to tasks ahead in line',
      );
    const opening = this.launch(id, options).then(async (session) => {
      try {
        await prepare(session);
        return session;
      } catch (err) {
        await session.close().catch(() => undefined);
        throw err;
      }
    });
    const entry: Entry = { id, organization: options.organization, opening, idleMs: options.idleMs, busy: 0 };
    this.entries.set(id, entry);
    entry.opening.catch(() => this.entries.get(id) === entry && this.entries.delete(id));
    return this.using(entry, () => entry.opening);
  }

  private async launch(id: string, options: SessionOptions): Promise<BrowserSession> {
    const proxySession = await this.proxy.session(options.upstreamProxyUrl);
    try {
      const context = await this.pool.openContext({
        userAgent: options.userAgent,
        locale: 'en-US',
        viewport: VIEWPORT,
        proxy: proxySession.proxy,
        acceptDownloads: false,
      });
      try {
        // A crashed page took the session's state with it: the workflow opens a new session (`session_lost`).
        const session = new BrowserSession(id, context, proxySession, await context.newPage(), () => {
          const entry = this.entries.get(id);
          if (entry) void this.closeEntry(entry);
        });
        await context.route('**/*', (route, request) => session.guard(route, request));
        // The browser crashed or was closed under the session: its steps must learn it is gone.
        context.on('close', () => {
          proxySession.end();
          const entry = this.entries.get(id);
          if (entry && !entry.closing) this.forget(entry);
        });
        return session;
      } catch (err) {
        await context.close().catch(() => undefined);
        throw err;
      }
    } catch (err) {
      proxySession.end();
      throw err;
    }
  }

  /** Runs one step on the session `id`, one step at a time; throws SessionLostError when it is not held here. */
  async use<T>(id: string, step: (session: BrowserSession) => Promise<T>): Promise<T> {
    const entry = this.entries.get(id);
    if (!entry || entry.closing) throw new SessionLostError(`browser session ${id} is not open on this worker`);
    return this.using(entry, async () => {
      const session = await entry.opening;
      return session.serially(async () => {
        if (this.entries.get(id) !== entry || entry.closing)
          throw new SessionLostError(`browser session ${id} was closed`);
        return step(session);
      });
    });
  }

  private async using<T>(entry: Entry, work: () => Promise<T>): Promise<T> {
    entry.busy++;
    clearTimeout(entry.idleTimer);
    try {
      return await work();
    } finally {
      entry.busy--;
      if (entry.busy === 0 && !entry.closing) {
        entry.idleTimer = setTimeout(() => {
          if (entry.busy === 0) void this.closeEntry(entry);
        }, entry.idleMs);
        entry.idleTimer.unref();
      }
    }
  }

  /** Closes the session `id` if it is held here; closing an unknown session is no fault. */
  async close(id: string): Promise<void> {
    const entry = this.entries.get(id);
    if (entry) await this.closeEntry(entry);
  }

  private forget(entry: Entry): void {
    clearTimeout(entry.idleTimer);
    if (this.entries.get(entry.id) === entry) this.entries.delete(entry.id);
  }

  private closeEntry(entry: Entry): Promise<void> {
    entry.closing ??= (async () => {
      this.forget(entry);
      const session = await entry.opening.catch(() => undefined);
      await session?.close().catch(() => undefined);
    })();
    return entry.closing;
  }

  /** Closes every session (at shutdown, before the browser itself). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.entries.values()].map((entry) => this.closeEntry(entry)));
  }
}
