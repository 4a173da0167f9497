import { fieldTypeOf, ruleViolation } from '../../src/browser/fieldRules';

describe('fieldTypeOf', () => {
  it.each([
    [{ tag: 'select' }, 'select'],
    [{ tag: 'textarea' }, 'textarea'],
    [{ tag: 'div' }, 'text'],
    [{ tag: 'input' }, 'text'],
    [{ tag: 'input', type: 'email' }, 'email'],
    [{ tag: 'input', type: 'tel' }, 'phone'],
    [{ tag: 'input', type: 'datetime-local' }, 'date'],
    [{ tag: 'input', type: 'range' }, 'number'],
    [{ tag: 'input', type: 'password' }, 'password'],
    [{ tag: 'input', type: 'radio' }, 'radio'],
    [{ tag: 'input', type: 'text', autocomplete: 'shipping email' }, 'email'],
    [{ tag: 'input', type: 'text', autocomplete: 'tel-national' }, 'phone'],
    [{ tag: 'input', type: 'file' }, 'other'],
  ] as const)('%j is %s', (field, expected) => expect(fieldTypeOf(field)).toBe(expected));
});

describe('ruleViolation', () => {
  const text = { required: false, fieldType: 'text' as const };
  it('asks for a required value only', () => {
    expect(ruleViolation({ ...text, required: true }, '')).toBe('a value is required');
    expect(ruleViolation({ ...text, rules: { minLength: 3 } }, '')).toBeUndefined();
  });
  it('checks lengths, and a pattern against the whole value', () => {
    expect(ruleViolation({ ...text, rules: { minLength: 3 } }, 'ab')).toBe('at least 3 characters are required');
    expect(ruleViolation({ ...text, rules: { maxLength: 2 } }, 'abc')).toBe('at most 2 characters are allowed');
    expect(ruleViolation({ ...text, rules: { pattern: '[A-Z]{3}' } }, 'ABCD')).toBeDefined();
    expect(ruleViolation({ ...text, rules: { pattern: '[A-Z]{3}' } }, 'ABC')).toBeUndefined();
    expect(ruleViolation({ ...text, rules: { pattern: '(' } }, 'anything')).toBeUndefined();
  });
  it('compares numbers as numbers and dates as their HTML text', () => {
    const number = { required: false, fieldType: 'number' as const, rules: { min: '9', max: '100' } };
    expect(ruleViolation(number, '10')).toBeUndefined();
    expect(ruleViolation(number, '8.5')).toBe('the value must be at least 9');
    expect(ruleViolation(number, '101')).toBe('the value must be at most 100');
    const date = { required: false, fieldType: 'date' as const, rules: { min: '2020-01-01' } };
    expect(ruleViolation(date, '2019-12-31')).toBe('the value must be at least 2020-01-01');
    expect(ruleViolation(date, '2020-01-02')).toBeUndefined();
  });
});

describe('ruleViolation on a hostile pattern', () => {
  // On V8's backtracking engine this never ends (the test times out); on RE2 it takes microseconds.
  it('runs the page’s pattern in linear time', () => {
    const field = { required: true, fieldType: 'text' as const, rules: { pattern: '(a+)+$' } };
    expect(ruleViolation(field, `${'a'.repeat(5_000)}!`)).toBe('the value does not have the required format');
  });
});
