import { RE2JS } from 're2js';
import type { FieldType } from '../events/automate';
import type { FormField } from '../operations/automate';

/** The HTML facts of a field that decide its FieldType. */
export interface FieldKind {
  tag: string;
  type?: string;
  autocomplete?: string;
}

const DATE_TYPES = new Set(['date', 'datetime-local', 'month', 'week', 'time']);

/** The kind of answer a field wants, as an input request names it (spec 6.1). */
export function fieldTypeOf(field: FieldKind): FieldType {
  if (field.tag === 'select') return 'select';
  if (field.tag === 'textarea') return 'textarea';
  // An element a script made editable (role textbox) takes text.
  if (field.tag !== 'input') return 'text';
  const type = field.type ?? 'text';
  if (type === 'email') return 'email';
  if (type === 'tel') return 'phone';
  if (DATE_TYPES.has(type)) return 'date';
  if (type === 'number' || type === 'range') return 'number';
  if (type === 'checkbox' || type === 'radio' || type === 'password') return type;
  if (type === 'text' || type === 'search' || type === 'url') {
    const tokens = (field.autocomplete ?? '').split(/\s+/);
    if (tokens.includes('email')) return 'email';
    if (tokens.some((token) => token.startsWith('tel'))) return 'phone';
    if (tokens.includes('bday')) return 'date';
    return 'text';
  }
  return 'other';
}

/**
 * Like the browser, a pattern matches the whole value. The pattern is the page's, so it runs on
 * RE2 (linear time): on V8's backtracking engine a hostile pattern could hold this worker, and
 * every session on it, for minutes. One RE2 cannot run (lookaround, backreferences) is left to the
 * browser's own validity check, in the page's renderer.
 */
function matchesPattern(pattern: string, value: string): boolean {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(`^(?:${pattern})$`);
  } catch {
    return true;
  }
  return compiled.matches(value);
}

/** Numbers compare as numbers; dates and times in their HTML form compare as text. */
function compare(value: string, bound: string, fieldType: FieldType): number | undefined {
  if (fieldType === 'number') {
    const [a, b] = [Number(value), Number(bound)];
    return Number.isFinite(a) && Number.isFinite(b) ? a - b : undefined;
  }
  if (fieldType === 'date') return value < bound ? -1 : value > bound ? 1 : 0;
  return undefined;
}

/**
 * Why `value` breaks the field's HTML constraints, or undefined. Checked before the value is
 * typed: a browser does not check `minlength` or `maxlength` on a value a script sets, so its
 * own validity would not tell.
 */
export function ruleViolation(
  field: Pick<FormField, 'required' | 'rules' | 'fieldType'>,
  value: string,
): string | undefined {
  if (value === '') return field.required ? 'a value is required' : undefined;
  const rules = field.rules ?? {};
  if (rules.minLength !== undefined && value.length < rules.minLength)
    return `at least ${rules.minLength} characters are required`;
  if (rules.maxLength !== undefined && value.length > rules.maxLength)
    return `at most ${rules.maxLength} characters are allowed`;
  if (rules.pattern !== undefined && !matchesPattern(rules.pattern, value))
    return 'the value does not have the required format';
  if (rules.min !== undefined && (compare(value, rules.min, field.fieldType) ?? 0) < 0)
    return `the value must be at least ${rules.min}`;
  if (rules.max !== undefined && (compare(value, rules.max, field.fieldType) ?? 0) > 0)
    return `the value must be at most ${rules.max}`;
  return undefined;
}
