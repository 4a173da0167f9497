import type { Locator, Page } from 'playwright-core';
import type { BrowserAction } from '../operations/automate';
import { PageUnresponsiveError, withinMs } from './pageDeadline';

/** Longest one click, fill or key press may wait for its element: a hostile page cannot stall a step. */
export const ACTION_TIMEOUT_MS = 5_000;
/** Longest a navigation the agent asked for may take to reach its document's content. */
export const NAVIGATION_TIMEOUT_MS = 15_000;

/** Longest a scroll may animate before we look anyway (a page at its end does not scroll at all). */
const SCROLL_END_MS = 1_000;

/** Refs of `ariaSnapshot({ mode: 'ai' })`: `e12`, or `f2e7` inside a frame. Anything else is not a ref. */
const REF = /^(f\d+)?e\d+$/;

/** A step the page refused: the agent hears why, and the task goes on. */
export class ActionError extends Error {}

/** The element `ref` names in the latest snapshot; an ActionError when there is none. */
export async function elementOf(page: Page, ref: string): Promise<Locator> {
  if (!REF.test(ref)) throw new ActionError(`"${ref}" is not a ref from the page snapshot`);
  const locator = page.getByRef(ref);
  if ((await withinMs(locator.count(), ACTION_TIMEOUT_MS, 'finding the element')) === 0)
    throw new ActionError(`no element [ref=${ref}] on the page now; observe the page again`);
  return locator;
}

/** What the agent is told of a failed Playwright call: its first line, without the call log. */
export function shortError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const first = (message.split('\n')[0] ?? message).replace(/^\w+(\.\w+)+: /, '').trim();
  return first.length > 300 ? `${first.slice(0, 297)}...` : first;
}

/** Errors that mean the step could not be done on this page, as opposed to the browser failing. */
export function isPageRefusal(err: unknown): boolean {
  if (err instanceof ActionError || err instanceof PageUnresponsiveError) return true;
  if (!(err instanceof Error)) return false;
  if (err.name === 'TimeoutError') return true;
  return !/Target page, context or browser has been closed|Browser has been closed|browser has disconnected/i.test(
    err.message,
  );
}

/** Only web pages: no `file:`, `javascript:`, `data:` or browser-internal URLs. */
export function webUrl(raw: string): URL | undefined {
  try {
    const url = new URL(raw);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** Carries out one action already allowed by the firewall. Throws what the page refused (see isPageRefusal). */
export async function carryOut(page: Page, action: BrowserAction): Promise<void> {
  switch (action.type) {
    case 'click':
      return (await elementOf(page, action.ref)).click({ timeout: ACTION_TIMEOUT_MS });
    case 'fill':
      return (await elementOf(page, action.ref)).fill(action.value, { timeout: ACTION_TIMEOUT_MS });
    case 'select':
      await (await elementOf(page, action.ref)).selectOption(action.value, { timeout: ACTION_TIMEOUT_MS });
      return;
    case 'press':
      if (action.ref) return (await elementOf(page, action.ref)).press(action.key, { timeout: ACTION_TIMEOUT_MS });
      return page.keyboard.press(action.key);
    case 'scroll': {
      // The wheel at the middle of the viewport scrolls what a person would: the page, or the panel under the pointer.
      const viewport = page.viewportSize() ?? { width: 1280, height: 800 };
      await page.mouse.move(viewport.width / 2, viewport.height / 2);
      // Wheel scrolling is animated: the next observation should see where it ends.
      const ended = await page.evaluateHandle(
        (ms) => ({
          done: new Promise<void>((resolve) => {
            document.addEventListener('scrollend', () => resolve(), { capture: true, once: true });
            setTimeout(resolve, ms);
          }),
        }),
        SCROLL_END_MS,
      );
      await page.mouse.wheel(0, (action.direction === 'down' ? 1 : -1) * viewport.height * 0.9);
      await withinMs(
        ended.evaluate((scroll) => scroll.done),
        SCROLL_END_MS + 500,
        'scrolling',
      ).finally(() => ended.dispose().catch(() => undefined));
      return;
    }
    case 'navigate':
      await page.goto(action.url, { waitUntil: 'domcontentloaded', timeout: NAVIGATION_TIMEOUT_MS });
      return;
  }
}
