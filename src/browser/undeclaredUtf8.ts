import type { Page, Response } from 'playwright-core';
import { htmlEncoding } from '../extraction/decode';

/** Not to be replayed: the body handed back is already decoded, and its cookies are already set. */
const NOT_REPLAYED = new Set(['content-encoding', 'content-length', 'transfer-encoding', 'set-cookie']);

/**
 * Chromium never takes a page that declares no encoding as UTF-8 (it falls back to windows-1252),
 * while the fetch path reads such a page as UTF-8 when its bytes are valid UTF-8. When the two
 * disagree, the page is loaded once more from the bytes Chromium already received, now labelled
 * UTF-8, so both paths read the same text. The document is not fetched again, and not outside
 * Chromium: fetching it from Node would show a server another client than the one rendering.
 * Returns the response of the document now shown. Everything here ends within `timeoutMs`: a
 * page whose script holds its main thread answers neither for its body nor for its document, and
 * the render's deadline must still hold.
 */
export async function relabelUndeclaredUtf8(page: Page, response: Response, timeoutMs: number): Promise<Response> {
  const deadline = Date.now() + timeoutMs;
  const contentType = response.headers()['content-type'] ?? 'text/html';
  // A page that navigated away already has neither its body nor its document to compare.
  const body = await settledBy(response.body(), deadline);
  if (!body) return response;
  const encoding = htmlEncoding(body, contentType);
  if (encoding.declared || encoding.name !== 'UTF-8') return response;
  const shown = await settledBy(
    page.evaluate(() => document.characterSet),
    deadline,
  );
  if (shown === undefined || shown === 'UTF-8') return response;
  const headers = Object.fromEntries(Object.entries(response.headers()).filter(([name]) => !NOT_REPLAYED.has(name)));
  headers['content-type'] = `${contentType.split(';')[0]!.trim() || 'text/html'}; charset=utf-8`;
  const url = response.url();
  await page.route(
    (candidate) => candidate.href === url,
    (route) => route.fulfill({ status: response.status(), headers, body }),
    { times: 1 },
  );
  return (await page.goto(url, { waitUntil: 'load', timeout: Math.max(1, deadline - Date.now()) })) ?? response;
}

/** What `work` gives by `deadline`, or undefined when it failed or was late; a late answer is dropped. */
async function settledBy<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([work.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}
