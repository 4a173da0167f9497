import type { FieldValue, FormField } from '../operations/automate';

/**
 * Checks a caller's answer to an input request against the fields' rules (required, options,
 * length, kind) before anything is typed, so a bad answer gets `fieldErrors` and a new request.
 * A field's `pattern` is the page's regular expression, which could take unbounded time: it is
 * left to the browser's own validity check when the values are typed (fillFields). Pure: the
 * workflow runs it.
 */
export function fieldErrorsOf(fields: FormField[], values: FieldValue[]): Record<string, string> {
  const errors: Record<string, string> = {};
  const byRef = new Map(fields.map((field) => [field.ref, field]));
  const given = new Map(values.map((entry) => [entry.ref, entry.value]));
  for (const ref of given.keys()) if (!byRef.has(ref)) errors[ref] = 'no such field in this request';
  for (const field of fields) {
    const value = given.get(field.ref);
    if (value === undefined || value === '') {
      if (field.required && field.currentValue === undefined)
        errors[field.ref] = `${field.label || 'this field'} is required`;
      continue;
    }
    const problem = ruleProblem(field, value);
    if (problem) errors[field.ref] = problem;
  }
  return errors;
}

function ruleProblem(field: FormField, value: string): string | undefined {
  if (field.options && field.options.length > 0 && !field.options.includes(value))
    return `must be one of: ${field.options.join(', ')}`;
  const rules = field.rules ?? {};
  if (rules.minLength !== undefined && value.length < rules.minLength)
    return `must be at least ${rules.minLength} characters`;
  if (rules.maxLength !== undefined && value.length > rules.maxLength)
    return `must be at most ${rules.maxLength} characters`;
  if (field.fieldType === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) return 'must be an email address';
  if (field.fieldType === 'number' && !Number.isFinite(Number(value))) return 'must be a number';
  return undefined;
}
