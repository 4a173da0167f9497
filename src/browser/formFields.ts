import type { ElementHandle, Locator, Page } from 'playwright-core';
import type { FieldValue, FirewallPolicy, FormField } from '../operations/automate';
import { fillVerdict } from './actionFirewall';
import type { BrowserSession } from './browserSession';
import { elementFacts } from './elementFacts';
import { fieldTypeOf, ruleViolation } from './fieldRules';
import { PAGE_ANSWER_MS } from './pageObservation';
import { withinMs } from './pageDeadline';
import { ACTION_TIMEOUT_MS, ActionError, elementOf, isPageRefusal, shortError } from './pageActions';

/** Roles of the snapshot lines that are form fields. */
const FIELD_LINE =
  /^\s*- (textbox|combobox|checkbox|radio|spinbutton|searchbox|slider|listbox|switch)\b(?: "((?:[^"\\]|\\.)*)")?.*\[ref=((?:f\d+)?e\d+)\]/;
/** A form with more fields than this is described by its first ones. */
const MAX_FIELDS = 60;

/** What the page tells of one field (runs in the page). */
interface FieldInfo {
  tag: string;
  type?: string;
  autocomplete?: string;
  label?: string;
  description?: string;
  required: boolean;
  /** Radios of one group are one field: their form and name. */
  group?: string;
  options?: string[];
  currentValue?: string;
  rules: NonNullable<FormField['rules']>;
}

/**
 * The form around `element`, or without one the nearest ancestor holding another field (a
 * search box and its button), or the page. Runs in the page.
 */
function containerOf(element: Element): Element {
  if (element.tagName === 'FORM') return element;
  const owner = (element as HTMLInputElement).form;
  const form = owner instanceof HTMLFormElement ? owner : element.closest('form');
  if (form) return form;
  const fields = 'input:not([type="hidden"]), select, textarea';
  const wanted = element.matches(fields) ? 2 : 1;
  for (let node = element.parentElement; node; node = node.parentElement)
    if (node.querySelectorAll(fields).length >= wanted) return node;
  return element.ownerDocument.body;
}

/** A short name for the container: its label, legend or heading. Runs in the page. */
function describeContainer(container: Element): string {
  const text = (value: string | null | undefined) =>
    (value ?? '').slice(0, 2_000).replace(/\s+/g, ' ').trim().slice(0, 200);
  const attribute = (name: string) => Element.prototype.getAttribute.call(container, name)?.slice(0, 200);
  const labelledBy = (attribute('aria-labelledby') ?? '')
    .split(/\s+/)
    .map((id) => text(container.ownerDocument.getElementById(id)?.textContent))
    .filter(Boolean)
    .join(' ');
  const inner = container.querySelector('legend, h1, h2, h3, h4, h5, h6');
  const before = Array.from(container.ownerDocument.querySelectorAll('h1, h2, h3, h4, h5, h6'))
    .filter((heading) => heading.compareDocumentPosition(container) & Node.DOCUMENT_POSITION_FOLLOWING)
    .pop();
  return (
    text(attribute('aria-label')) ||
    labelledBy ||
    text(inner?.textContent) ||
    text(before?.textContent) ||
    text(attribute('title')) ||
    text(container.ownerDocument.title)
  );
}

/** The field's facts, or null when it is not in `container`. Runs in the page. */
function fieldInfo(element: Element, container: Element | null): FieldInfo | null {
  const input = element as HTMLInputElement;
  if (container && !container.contains(element) && input.form !== container) return null;
  // Words and attributes are read up to 200 characters, whatever the page writes: they go to the
  // classifier and the caller. A rule longer than its bound (a pattern's 1,000) is left to the
  // page's own validity check, as one RE2 cannot run is: cut, it would be another rule.
  const text = (value: string | null | undefined) =>
    (value ?? '').slice(0, 2_000).replace(/\s+/g, ' ').trim().slice(0, 200);
  const attribute = (el: Element, name: string) => Element.prototype.getAttribute.call(el, name)?.slice(0, 200);
  const rule = (name: string, max = 200) => {
    const value = Element.prototype.getAttribute.call(element, name) ?? undefined;
    return value !== undefined && value.length <= max ? value : undefined;
  };
  // A label's words without those of the controls it wraps (a select's options).
  const ownText = (node: Node): string =>
    Array.from(node.childNodes, (child): string => {
      if (child.nodeType === Node.TEXT_NODE) return child.textContent ?? '';
      if (child.nodeType !== Node.ELEMENT_NODE) return '';
      return (child as Element).matches('select, textarea, input, button, option, datalist, script, style')
        ? ''
        : ` ${ownText(child)}`;
    }).join('');
  const labelOf = (el: Element): string | undefined => {
    const byIds = (ids: string | undefined) =>
      (ids ?? '')
        .split(/\s+/)
        .map((id) => text(el.ownerDocument.getElementById(id)?.textContent))
        .filter(Boolean)
        .join(' ');
    const labels = (el as HTMLInputElement).labels;
    return (
      byIds(attribute(el, 'aria-labelledby')) ||
      text(attribute(el, 'aria-label')) ||
      (labels
        ? Array.from(labels, (label) => text(ownText(label)))
            .filter(Boolean)
            .join(' ')
        : '') ||
      text(attribute(el, 'title')) ||
      undefined
    );
  };
  const tag = element.tagName.toLowerCase();
  const type = tag === 'input' ? (attribute(element, 'type') ?? 'text').toLowerCase() : undefined;
  const number = (name: string) => {
    const raw = rule(name);
    return raw !== undefined && /^\d+$/.test(raw) ? Number(raw) : undefined;
  };
  const info: FieldInfo = {
    tag,
    type,
    autocomplete: attribute(element, 'autocomplete')?.toLowerCase(),
    label: labelOf(element) ?? (text(attribute(element, 'placeholder')) || attribute(element, 'name')),
    required: element.hasAttribute('required') || attribute(element, 'aria-required') === 'true',
    rules: {
      pattern: rule('pattern', 1_000),
      minLength: number('minlength'),
      maxLength: number('maxlength'),
      min: rule('min'),
      max: rule('max'),
    },
  };
  const describedBy = (attribute(element, 'aria-describedby') ?? '')
    .split(/\s+/)
    .map((id) => text(element.ownerDocument.getElementById(id)?.textContent))
    .filter(Boolean)
    .join(' ');
  if (describedBy) info.description = describedBy;
  if (element instanceof HTMLSelectElement) {
    info.options = Array.from(element.options, (option) => text(option.label || option.text)).slice(0, 50);
    info.currentValue = element.selectedOptions[0] ? text(element.selectedOptions[0].label) : undefined;
  } else if (type === 'checkbox') {
    info.currentValue = input.checked ? 'true' : 'false';
  } else if (type === 'radio') {
    const name = attribute(element, 'name');
    const scope: ParentNode = input.form ?? element.ownerDocument;
    const radios = Array.from(scope.querySelectorAll('input[type="radio" i]')).filter(
      (radio) => attribute(radio, 'name') === name && (radio as HTMLInputElement).form === input.form,
    ) as HTMLInputElement[];
    const optionOf = (radio: HTMLInputElement) => labelOf(radio) ?? text(radio.value);
    info.group = `${name}`;
    info.options = radios.map(optionOf).slice(0, 50);
    const checked = radios.find((radio) => radio.checked);
    if (checked) info.currentValue = optionOf(checked);
    info.required = radios.some((radio) => radio.required);
    // A radio's own label names the option; the group is named by its fieldset, if it has one.
    info.label = text(element.closest('fieldset')?.querySelector('legend')?.textContent) || name || info.label;
  } else if (type !== 'password' && 'value' in element) {
    info.currentValue = String((element as HTMLInputElement).value).slice(0, 500) || undefined;
  } else if (tag !== 'input' && tag !== 'textarea' && type !== 'password') {
    info.currentValue = text(element.textContent) || undefined;
  }
  return info;
}

function formFieldOf(ref: string, name: string, info: FieldInfo): FormField {
  const rules = Object.fromEntries(Object.entries(info.rules).filter(([, value]) => value !== undefined));
  const field: FormField = {
    ref,
    label: info.label || name || ref,
    fieldType: fieldTypeOf(info),
    required: info.required,
  };
  if (info.description) field.description = info.description;
  if (info.options) field.options = info.options;
  if (info.currentValue !== undefined && field.fieldType !== 'password') field.currentValue = info.currentValue;
  if (Object.keys(rules).length > 0) field.rules = rules;
  return field;
}

/** The field refs of a fresh snapshot, in document order, with their accessible names. */
async function fieldRefs(page: Page): Promise<{ ref: string; name: string }[]> {
  const snapshot = await page.ariaSnapshot({ mode: 'ai', timeout: PAGE_ANSWER_MS });
  const refs: { ref: string; name: string }[] = [];
  for (const line of snapshot.split('\n')) {
    const match = FIELD_LINE.exec(line);
    if (!match) continue;
    let name = match[2] ?? '';
    try {
      name = JSON.parse(`"${name}"`) as string;
    } catch {
      // A name the snapshot escaped in some other way stays as it came.
    }
    refs.push({ ref: match[3]!, name });
  }
  return refs;
}

/**
 * The fields of the form around `ref` (spec 6.1 `interactive:form_data:request`): each with a
 * ref `getByRef` resolves (radios of one group as one field, by their first radio's ref), and
 * the HTML constraints its value must meet. Password fields never tell their value.
 */
export async function describeForm(page: Page, ref: string): Promise<{ fields: FormField[]; formDescription: string }> {
  const target = await elementOf(page, ref);
  const refs = await fieldRefs(page);
  const container: ElementHandle = await target.evaluateHandle(containerOf);
  try {
    const formDescription = await withinMs(
      container.evaluate(describeContainer),
      PAGE_ANSWER_MS,
      'describing the form',
    );
    const fields: FormField[] = [];
    const groups = new Set<string>();
    for (const { ref: fieldRef, name } of refs) {
      if (fields.length >= MAX_FIELDS) break;
      const info = await page
        .getByRef(fieldRef)
        .evaluate(fieldInfo, container as ElementHandle<Element>, { timeout: PAGE_ANSWER_MS })
        .catch(() => null);
      if (!info) continue;
      if (info.group !== undefined) {
        if (groups.has(info.group)) continue;
        groups.add(info.group);
      }
      fields.push(formFieldOf(fieldRef, name, info));
    }
    return { fields, formDescription };
  } finally {
    await container.dispose().catch(() => undefined);
  }
}

const TRUE = new Set(['true', 'yes', 'on', '1', 'checked']);
const FALSE = new Set(['false', 'no', 'off', '0', 'unchecked', '']);

/** Checks the radio of `radio`'s group whose label or value is `choice`; false when none is. Runs in the page. */
function chooseRadio(radio: Element, choice: string): boolean {
  const input = radio as HTMLInputElement;
  const wanted = choice.trim().toLowerCase();
  const text = (value: string | null | undefined) => (value ?? '').replace(/\s+/g, ' ').trim().toLowerCase();
  const name = Element.prototype.getAttribute.call(radio, 'name');
  const scope: ParentNode = input.form ?? radio.ownerDocument;
  const match = (Array.from(scope.querySelectorAll('input[type="radio" i]')) as HTMLInputElement[])
    .filter((other) => Element.prototype.getAttribute.call(other, 'name') === name && other.form === input.form)
    .find(
      (other) =>
        text(other.value) === wanted ||
        Array.from(other.labels ?? []).some((label) => text(label.textContent) === wanted) ||
        text(Element.prototype.getAttribute.call(other, 'aria-label')) === wanted,
    );
  if (!match) return false;
  match.click();
  return match.checked;
}

/** Types one answer; the reason it was refused, if it was. */
async function fillOne(
  session: BrowserSession,
  page: Page,
  value: FieldValue,
  policy: FirewallPolicy,
): Promise<string | undefined> {
  const locator: Locator = await elementOf(page, value.ref);
  const info = await locator.evaluate(fieldInfo, null, { timeout: ACTION_TIMEOUT_MS });
  if (!info) throw new ActionError('not a form field');
  const field = formFieldOf(value.ref, '', info);
  const facts = await elementFacts(locator, 'none', ACTION_TIMEOUT_MS);
  const verdict = fillVerdict(session, facts, value.value, 'caller', false, policy);
  if (!verdict.allowed) return verdict.reason;
  const broken = ruleViolation(field, value.value);
  if (broken) return broken;
  switch (field.fieldType) {
    case 'checkbox': {
      const wanted = value.value.trim().toLowerCase();
      if (!TRUE.has(wanted) && !FALSE.has(wanted)) return 'expected true or false';
      if (field.required && !TRUE.has(wanted)) return 'this box must be checked';
      await locator.setChecked(TRUE.has(wanted), { timeout: ACTION_TIMEOUT_MS });
      return undefined;
    }
    case 'radio':
      return (await locator.evaluate(chooseRadio, value.value, { timeout: ACTION_TIMEOUT_MS }))
        ? undefined
        : `expected one of: ${(field.options ?? []).join(', ')}`;
    case 'select':
      try {
        await locator.selectOption(value.value, { timeout: ACTION_TIMEOUT_MS });
        return undefined;
      } catch {
        return `expected one of: ${(field.options ?? []).join(', ')}`;
      }
    default: {
      if (info.tag === 'input' && info.type === 'file') return 'file fields cannot be filled';
      const previous = await locator.inputValue({ timeout: ACTION_TIMEOUT_MS }).catch(() => '');
      await locator.fill(value.value, { timeout: ACTION_TIMEOUT_MS });
      const validity = await locator.evaluate(
        (el) => ({
          valid: (el as HTMLInputElement).checkValidity?.() ?? true,
          message: (el as HTMLInputElement).validationMessage ?? '',
        }),
        undefined,
        { timeout: ACTION_TIMEOUT_MS },
      );
      if (validity.valid) return undefined;
      // A value the field refuses is not left in it.
      await locator.fill(previous, { timeout: ACTION_TIMEOUT_MS }).catch(() => undefined);
      return validity.message || 'the field refused this value';
    }
  }
}

/**
 * Types the caller's answers (source `caller`: the firewall lets them in, and they consent to
 * their form's submission). Answers a field refuses, by its rules or its own validity, or that
 * name no field, come back in `fieldErrors` by ref and are not left typed in.
 */
export async function fillFields(
  session: BrowserSession,
  page: Page,
  values: FieldValue[],
  policy: FirewallPolicy,
): Promise<{ fieldErrors: Record<string, string> }> {
  const fieldErrors: Record<string, string> = {};
  for (const value of values) {
    try {
      const error = await withinMs(fillOne(session, page, value, policy), 2 * ACTION_TIMEOUT_MS, 'filling the field');
      if (error) fieldErrors[value.ref] = error;
    } catch (err) {
      if (!isPageRefusal(err)) throw err;
      fieldErrors[value.ref] = err instanceof ActionError ? err.message : shortError(err);
    }
  }
  return { fieldErrors };
}
