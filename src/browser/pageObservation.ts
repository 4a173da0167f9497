import type { Page } from 'playwright-core';
import type { Observation } from '../operations/automate';
import { PageUnresponsiveError, withinMs } from './pageDeadline';

/** A model reads the snapshot at every step: past this, a page costs more than it tells. */
export const SNAPSHOT_MAX_CHARS = 24_000;
/** Screenshots travel as events only up to this size (base64 adds a third). */
export const SCREENSHOT_MAX_BYTES = 48 * 1024;
/** Half a 1280-pixel viewport: enough to see the layout, small enough to stay under the event bound. */
const SCREENSHOT_WIDTH = 640;
const SCREENSHOT_QUALITY = 50;
/** Longest the page may take to answer one question (its snapshot, its title, a screenshot). */
export const PAGE_ANSWER_MS = 5_000;

/** `text` cut at the last line boundary within `max` characters. */
export function boundSnapshot(text: string, max = SNAPSHOT_MAX_CHARS): { snapshot: string; truncated: boolean } {
  if (text.length <= max) return { snapshot: text, truncated: false };
  const cut = text.lastIndexOf('\n', max);
  return { snapshot: text.slice(0, cut > 0 ? cut : max), truncated: true };
}

/**
 * Past this a title is the page talking: it is cut before it goes to the model, the events and
 * the history. Read through Playwright's own (utility) world, where the page's scripts cannot
 * replace `document.title` or `String.prototype.slice`.
 */
const TITLE_MAX_CHARS = 1_000;

async function boundedTitle(page: Page): Promise<string> {
  return (await page.title()).slice(0, TITLE_MAX_CHARS);
}

/** The document's title, or '' when the page does not answer. */
export async function titleOf(page: Page): Promise<string> {
  return withinMs(boundedTitle(page), PAGE_ANSWER_MS, 'reading the title').catch(() => '');
}

/**
 * The visible viewport as a JPEG scaled to SCREENSHOT_WIDTH. Playwright's own screenshot has
 * no scale, so this asks Chromium directly (its capture scales as it encodes).
 */
async function scaledScreenshot(page: Page): Promise<Buffer> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const metrics = await cdp.send('Page.getLayoutMetrics');
    const view = metrics.cssVisualViewport;
    const { data } = await cdp.send('Page.captureScreenshot', {
      format: 'jpeg',
      quality: SCREENSHOT_QUALITY,
      clip: {
        x: view.pageX,
        y: view.pageY,
        width: view.clientWidth,
        height: view.clientHeight,
        scale: Math.min(1, SCREENSHOT_WIDTH / view.clientWidth),
      },
    });
    return Buffer.from(data, 'base64');
  } finally {
    await cdp.detach().catch(() => undefined);
  }
}

/**
 * What the agent sees of the page: its accessibility snapshot in Playwright's `ai` mode (each
 * element it can act on carries a `[ref=eN]` that `page.getByRef` resolves), bounded; and,
 * when asked, a scaled screenshot, whose image comes back only when it is small.
 */
export async function observePage(page: Page, screenshot: boolean): Promise<Observation> {
  // Once the page has let one question wait out its bound, it is asked nothing more: a frozen
  // page costs one bound per observation, not one per question.
  let answering = true;
  const ask = async <T>(work: () => Promise<T>, what: string): Promise<T | undefined> => {
    if (!answering) return undefined;
    try {
      return await withinMs(work(), PAGE_ANSWER_MS + 500, what);
    } catch (err) {
      if (!(err instanceof PageUnresponsiveError) && !(err instanceof Error && err.name === 'TimeoutError')) throw err;
      answering = false;
      return undefined;
    }
  };
  const text =
    (await ask(() => page.ariaSnapshot({ mode: 'ai', timeout: PAGE_ANSWER_MS }), 'the snapshot')) ??
    `(the page did not answer within ${PAGE_ANSWER_MS / 1000} s: its script may be holding it)`;
  const title = (await ask(() => boundedTitle(page), 'the title')) ?? '';
  const observation: Observation = { url: page.url(), title, ...boundSnapshot(text) };
  if (screenshot) {
    // A screenshot is a help, not the observation: one Chromium could not take is left out.
    const image = await ask(() => scaledScreenshot(page).catch(() => undefined), 'the screenshot');
    if (image) {
      observation.screenshotBytes = image.length;
      if (image.length <= SCREENSHOT_MAX_BYTES)
        observation.screenshot = { image: image.toString('base64'), bytes: image.length };
    }
  }
  return observation;
}
