import type { Browser } from 'playwright-core';
import { BrowserLiveness } from '../../src/browser/browserLiveness';

/**
 * The browser's liveness watch on a stand-in for Playwright's Browser whose DevTools session
 * answers, or never does (as a stopped Chromium's), under Jest's fake clock.
 */

function browserAnswering(answers: () => boolean): { browser: Browser; asked: () => number } {
  let asked = 0;
  const session = {
    send: () => {
      asked++;
      return answers() ? Promise.resolve({ product: 'HeadlessChrome' }) : new Promise(() => undefined);
    },
  };
  const browser = { newBrowserCDPSession: () => Promise.resolve(session) } as unknown as Browser;
  return { browser, asked: () => asked };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

it('leaves a browser that answers alone', async () => {
  const { browser, asked } = browserAnswering(() => true);
  const hung = jest.fn();
  const liveness = new BrowserLiveness(browser, hung);
  liveness.start();
  await jest.advanceTimersByTimeAsync(60_000);
  liveness.stop();
  expect(hung).not.toHaveBeenCalled();
  expect(asked()).toBe(30);
});

it('calls a browser hung once, 10 s after the question it did not answer, and asks no more', async () => {
  let answering = true;
  const { browser, asked } = browserAnswering(() => answering);
  const hung = jest.fn();
  new BrowserLiveness(browser, hung).start();
  await jest.advanceTimersByTimeAsync(4_000);
  answering = false;
  await jest.advanceTimersByTimeAsync(2_000 + 9_999);
  expect(hung).not.toHaveBeenCalled();
  await jest.advanceTimersByTimeAsync(1);
  expect(hung).toHaveBeenCalledTimes(1);
  const questions = asked();
  await jest.advanceTimersByTimeAsync(60_000);
  expect(hung).toHaveBeenCalledTimes(1);
  expect(asked()).toBe(questions);
});
