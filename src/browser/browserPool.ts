import { randomBytes } from 'node:crypto';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import type { BrowserSettings } from '../config';
import { GUARD_PROXY_HOST } from './guardProxy';
import { BrowserLiveness } from './browserLiveness';
import { RendererMemoryWatch } from './rendererMemory';

/**
 * The one Chromium process of a browser worker. Each request gets a fresh context (its own
 * cookies, cache and storage) and closes it in `finally`; a semaphore bounds how many run at
 * once; a browser that crashed is launched again on next use. Automate sessions take long-lived
 * contexts of the same browser (`openContext`), bounded and closed by their owner. `close()` at
 * shutdown leaves no process behind. No page's renderer may hold more than `rendererMaxMb`
 * (RendererMemoryWatch): one hostile page costs its own context, not the browser. A browser that
 * stops answering (BrowserLiveness) is ended and launched again, as a crashed one is.
 */

/** Without these, Chromium phones home at start and per page; on a closed network that fails slowly. */
const CHROMIUM_ARGS = [
  '--headless=new',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-dev-shm-usage',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-extensions',
  '--mute-audio',
  // Pages reach the network only through the guard proxy (a TCP connection per request), so nothing may go around it:
  // WebRTC would send STUN and TURN straight out over UDP, with no proxy in the way.
  '--webrtc-ip-handling-policy=disable_non_proxied_udp',
  // Chromium resolves no name itself (a STUN server's, a DNS prefetch): the proxy resolves and checks every name.
  `--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE ${GUARD_PROXY_HOST}`,
];

export class BrowserPool {
  private browser: Promise<Browser> | undefined;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  /** `openContexts` follows how many contexts are open, for the worker's metrics. */
  constructor(
    private readonly settings: BrowserSettings,
    private readonly openContexts?: { inc(): void; dec(): void },
  ) {}

  private launch(): Promise<Browser> {
    if (!this.browser) {
      // Names this launch's browser among the processes, for the memory watch to find it.
      const marker = `--webloom-browser=${randomBytes(8).toString('hex')}`;
      const launching = chromium.launch({
        executablePath: this.settings.executablePath,
        args: [
          ...CHROMIUM_ARGS,
          `--js-flags=--max-old-space-size=${Math.floor((this.settings.rendererMaxMb * 3) / 4)}`,
          marker,
        ],
        timeout: 30_000,
      });
      this.browser = launching;
      launching.then(
        (browser) => {
          const watch = new RendererMemoryWatch(marker, this.settings.rendererMaxMb * 1024 * 1024);
          watch.start();
          const liveness = new BrowserLiveness(browser, () => watch.killBrowser());
          liveness.start();
          browser.on('disconnected', () => {
            watch.stop();
            liveness.stop();
            if (this.browser === launching) this.browser = undefined;
          });
        },
        () => this.browser === launching && (this.browser = undefined),
      );
    }
    return this.browser;
  }

  private async acquire(): Promise<void> {
    if (this.active < this.settings.concurrency) {
      this.active++;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.active--;
  }

  /**
   * A fresh context that the caller closes. Service workers are refused: their requests are not
   * the page's, so we could neither see nor route them.
   */
  async openContext(options: Parameters<Browser['newContext']>[0]): Promise<BrowserContext> {
    return (await this.launch()).newContext({ ...options, serviceWorkers: 'block' });
  }

  /** Runs `work` in a fresh context that is closed afterwards, whatever happens. */
  async withContext<T>(
    options: Parameters<Browser['newContext']>[0],
    work: (context: BrowserContext) => Promise<T>,
  ): Promise<T> {
    await this.acquire();
    let context: BrowserContext | undefined;
    try {
      context = await this.openContext(options);
      this.openContexts?.inc();
      return await work(context);
    } finally {
      if (context) {
        await context.close().catch(() => undefined);
        this.openContexts?.dec();
      }
      this.release();
    }
  }

  async close(): Promise<void> {
    const browser = await this.browser?.catch(() => undefined);
    this.browser = undefined;
    await browser?.close();
  }
}
