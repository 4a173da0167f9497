import type { Page } from 'playwright-core';
import { checkFill, checkNavigation, checkSubmission, type FirewallVerdict } from '../automate/firewall';
import type { BrowserAction, FieldFacts, FirewallPolicy, ValueSource } from '../operations/automate';
import type { BrowserSession } from './browserSession';
import { elementFacts, focusedFacts, formKey, type ElementFacts } from './elementFacts';
import { ACTION_TIMEOUT_MS, elementOf } from './pageActions';

const ALLOWED: FirewallVerdict = { allowed: true };

/** Enter, alone: the key a browser submits a form with from one of its fields. */
function isEnter(key: string): boolean {
  return key === 'Enter' || key === 'NumpadEnter';
}

/** The submission the facts describe, checked with the caller's consent as this session recorded it. */
function submissionVerdict(
  session: BrowserSession,
  page: Page,
  facts: ElementFacts | undefined,
  policy: FirewallPolicy,
): FirewallVerdict {
  if (!facts?.submits) return ALLOWED;
  const consented = session.consentedForms.has(formKey(page.url(), facts.submits));
  return checkSubmission(facts.submits, new URL(page.url()).hostname, policy, consented);
}

/**
 * The firewall's decision on typing `value` into a field, recording the caller's consent to the
 * field's form when the caller's own answer goes in (a later submission of it is theirs), and
 * the values the model must not read back.
 */
export function fillVerdict(
  session: BrowserSession,
  page: Page,
  field: FieldFacts,
  value: string,
  source: ValueSource,
  credential: boolean,
  policy: FirewallPolicy,
): FirewallVerdict {
  const verdict = checkFill(field, value, source, new URL(page.url()).hostname, policy, credential);
  if (!verdict.allowed) return verdict;
  if (source === 'caller' && field.form) session.consentedForms.add(formKey(page.url(), field.form));
  session.secrets.typed(field, value, source, credential);
  return verdict;
}

/**
 * Asks the action firewall (src/automate/firewall.ts) about `action` before it is carried out,
 * with what the page's DOM says about its element: the field a fill types into, the form a click
 * or Enter would submit, the address a click or navigation opens.
 */
export async function actionVerdict(
  session: BrowserSession,
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
      return fillVerdict(session, page, facts.field, action.value, action.source, action.credential, policy);
    }
    case 'click': {
      const facts = await elementFacts(await elementOf(page, action.ref), 'click', ACTION_TIMEOUT_MS);
      const opening = facts.opens ? checkNavigation(facts.opens, policy) : ALLOWED;
      return opening.allowed ? submissionVerdict(session, page, facts, policy) : opening;
    }
    case 'press': {
      if (!isEnter(action.key)) return ALLOWED;
      const facts = action.ref
        ? await elementFacts(await elementOf(page, action.ref), 'enter', ACTION_TIMEOUT_MS)
        : await focusedFacts(page, 'enter');
      return submissionVerdict(session, page, facts, policy);
    }
    default:
      return ALLOWED;
  }
}
