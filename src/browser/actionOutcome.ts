import type { ActionOutcome } from '../operations/automate';
import type { BrowserSession } from './browserSession';
import { titleOf } from './pageObservation';

/** Longest the page may take to settle after an action. */
const SETTLE_MS = 5_000;
/** After the document is there, how long its requests may keep it busy before we look anyway. */
const NETWORK_SETTLE_MS = 1_500;
/** How long a page must make no request to count as settled: its scripts start their fetches at once. */
const SETTLED_QUIET_MS = 100;
/** How long after an action its handler may take to start a navigation. */
const HANDLER_START_MS = 30;

/**
 * Waits, within SETTLE_MS, for what the action set off: a navigation to commit and its document
 * to load its content, then the page's own requests (its scripts' fetches) to go quiet for a
 * moment. Each wait ends as soon as its condition holds: an agent step is mostly this wait, so
 * a fixed pause would be paid on every step.
 */
export async function settle(session: BrowserSession, documentsBefore: number, mayNavigate = true): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  // A click's (or a key's, or a choice's) handler may start its navigation a moment after the action returns.
  if (mayNavigate) await new Promise((resolve) => setTimeout(resolve, HANDLER_START_MS));
  while (session.navigationPending() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  const current = await session.page();
  if (session.documents !== documentsBefore)
    await current
      .waitForLoadState('domcontentloaded', { timeout: Math.max(1, deadline - Date.now()) })
      .catch(() => undefined);
  await session.networkOf(current).quiet(Math.min(deadline, Date.now() + NETWORK_SETTLE_MS), SETTLED_QUIET_MS);
}

/** The outcome as the agent reads it: where the session is now. */
export async function outcomeOf(
  session: BrowserSession,
  documentsBefore: number,
  result: { success: boolean; error?: string; blocked?: boolean },
): Promise<ActionOutcome> {
  const page = await session.page();
  return { ...result, url: page.url(), title: await titleOf(page), navigated: session.documents !== documentsBefore };
}
