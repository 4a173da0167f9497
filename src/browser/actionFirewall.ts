import type { Page, Request } from 'playwright-core';
import { checkFill, checkNavigation, checkSubmission, type FirewallVerdict } from '../automate/firewall';
import type { BrowserAction, FirewallPolicy, FirewallRules, ValueSource } from '../operations/automate';
import { elementFacts, focusedFacts, formKey, type ElementFacts } from './elementFacts';
import { ACTION_TIMEOUT_MS, elementOf, webUrl } from './pageActions';
import type { SecretValues } from './secretValues';

/** What the firewall keeps of a browser session: the forms the caller filled, the values typed. */
export interface GuardedSession {
  readonly consentedForms: Set<string>;
  readonly secrets: SecretValues;
  firewall?: FirewallRules;
}

const ALLOWED: FirewallVerdict = { allowed: true };
const OPAQUE_ORIGIN = 'a document of opaque origin';

/** Enter, alone: the key a browser submits a form with from one of its fields. */
function isEnter(key: string): boolean {
  return key === 'Enter' || key === 'NumpadEnter';
}

const ACTIVATING_KEYS = new Set(['Enter', 'NumpadEnter', 'Space', ' ']);

/**
 * A key that activates a link, button or form (Enter, Space) pressed with a modifier: Chromium
 * may then open what it sets off in a new window or tab (Shift+Enter in a field, Shift+Space on a
 * submit button do), and that window's first request leaves before the session's request check
 * (navigationVerdict) is attached to it.
 */
function opensElsewhere(key: string): boolean {
  const parts = key.split('+');
  const main = parts.pop() || '+';
  return parts.length > 0 && ACTIVATING_KEYS.has(main);
}

const NEW_WINDOW_REFUSAL: FirewallVerdict = {
  allowed: false,
  reason:
    'action firewall: Enter or Space may not be pressed with Shift, Control, Alt or Meta: the browser would open ' +
    'what it sets off in a new window, past the firewall',
};

/**
 * The host of the element's own document: a frame's, not the page's it is shown in. An opaque
 * origin (a `data:` frame) is no host anyone trusted.
 */
function hostOf(facts: ElementFacts): string {
  return facts.origin === 'null' ? OPAQUE_ORIGIN : new URL(facts.origin).hostname;
}

/** The submission the facts describe, checked with the caller's consent as this session recorded it. */
function submissionVerdict(
  session: GuardedSession,
  facts: ElementFacts | undefined,
  policy: FirewallPolicy,
): FirewallVerdict {
  if (!facts?.submits) return ALLOWED;
  const consented = session.consentedForms.has(formKey(facts.documentUrl, facts.submits));
  return checkSubmission(facts.submits, hostOf(facts), policy, consented);
}

/**
 * The firewall's decision on typing `value` into the field the facts describe, recording the
 * caller's consent to the field's form when the caller's own answer goes in (a later submission
 * of it is theirs), and the values the model must not read back.
 */
export function fillVerdict(
  session: GuardedSession,
  facts: ElementFacts,
  value: string,
  source: ValueSource,
  credential: boolean,
  policy: FirewallPolicy,
): FirewallVerdict {
  const { field } = facts;
  const verdict = checkFill(field, value, source, hostOf(facts), policy, credential);
  if (!verdict.allowed) return verdict;
  if (source === 'caller' && field.form) session.consentedForms.add(formKey(facts.documentUrl, field.form));
  session.secrets.typed(field, value, source, credential);
  return verdict;
}

/**
 * Asks the action firewall (src/automate/firewall.ts) about `action` before it is carried out,
 * with what the page's DOM says about its element: the field a fill types into, the form a click
 * or Enter would submit, the address a click or navigation opens.
 */
export async function actionVerdict(
  session: GuardedSession,
  page: Page,
  action: BrowserAction,
  policy: FirewallPolicy,
): Promise<FirewallVerdict> {
  // A fill is looked at even without the firewall: its value may be one the model must not read back.
  if (!policy.enabled && action.type !== 'fill') return ALLOWED;
  switch (action.type) {
    case 'navigate':
      return checkNavigation(action.url, policy);
    case 'fill': {
      const facts = await elementFacts(await elementOf(page, action.ref), 'none', ACTION_TIMEOUT_MS);
      return fillVerdict(session, facts, action.value, action.source, action.credential, policy);
    }
    case 'click': {
      const facts = await elementFacts(await elementOf(page, action.ref), 'click', ACTION_TIMEOUT_MS);
      const opening = facts.opens ? checkNavigation(facts.opens, policy) : ALLOWED;
      return opening.allowed ? submissionVerdict(session, facts, policy) : opening;
    }
    case 'press': {
      if (opensElsewhere(action.key)) return NEW_WINDOW_REFUSAL;
      if (!isEnter(action.key)) return ALLOWED;
      const facts = action.ref
        ? await elementFacts(await elementOf(page, action.ref), 'enter', ACTION_TIMEOUT_MS)
        : await focusedFacts(page, 'enter');
      return submissionVerdict(session, facts, policy);
    }
    default:
      return ALLOWED;
  }
}

/**
 * The firewall's decision on a document navigation about to leave the session's browser, in any
 * frame or window, whatever set it off: a key, a script's `form.submit()`, the page itself. No
 * gesture gets around a check on the request: its URL may not carry the caller's values to an
 * untrusted host, and a POST to an untrusted host needs the caller's consent to that very form.
 */
export function navigationVerdict(session: GuardedSession, request: Request): FirewallVerdict {
  if (!session.firewall) return ALLOWED;
  const policy = session.secrets.policy(session.firewall);
  if (!policy.enabled || !request.isNavigationRequest() || !webUrl(request.url())) return ALLOWED;
  const opening = checkNavigation(request.url(), policy);
  if (!opening.allowed || request.method() === 'GET') return opening;
  const form = { method: 'post' as const, action: request.url() };
  const consented = session.consentedForms.has(formKey(senderUrl(request), form));
  return checkSubmission(form, new URL(request.url()).hostname, policy, consented);
}

/** The URL of the document sending the request; none for a new window's first, which has no frame yet. */
function senderUrl(request: Request): string {
  try {
    return request.frame().url();
  } catch {
    return '';
  }
}
