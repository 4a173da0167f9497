import type { Browser, CDPSession } from 'playwright-core';
import { PageUnresponsiveError, withinMs } from './pageDeadline';

/** How often the browser is asked to answer. */
const ASK_MS = 2_000;
/**
 * How long it has to answer a question its own main thread answers at once: generous, since a
 * browser ended by mistake costs every session on it a new one, on a machine that may be swamped.
 */
const ANSWER_MS = 10_000;

/**
 * Asks one Chromium, every ASK_MS, for its version over its own DevTools session, and calls
 * `hung` once it has not answered within ANSWER_MS. A browser that stopped (SIGSTOP, a wedged
 * main thread) is not gone: Playwright hears no disconnect, and every session and render on it
 * would wait on it for ever, a new context too. Its owner ends it, so it is launched again and
 * its sessions are replaced.
 */
export class BrowserLiveness {
  private timer?: NodeJS.Timeout;
  private session?: Promise<CDPSession>;
  private asking = false;

  constructor(
    private readonly browser: Browser,
    private readonly hung: () => void,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.ask(), ASK_MS);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  private async ask(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    try {
      this.session ??= this.browser.newBrowserCDPSession();
      const session = await withinMs(this.session, ANSWER_MS, 'the browser answering');
      await withinMs(session.send('Browser.getVersion'), ANSWER_MS, 'the browser answering');
    } catch (err) {
      // Any other failure is the browser gone already, which its `disconnected` event tells.
      if (err instanceof PageUnresponsiveError) {
        this.stop();
        this.hung();
      } else this.session = undefined;
    } finally {
      this.asking = false;
    }
  }
}
