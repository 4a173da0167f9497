import {
  classifyValue,
  keywordMatch,
  MAX_WORDS_CHARS,
  protectedValuesOf,
  valueSensitivity,
} from '../../src/automate/sensitiveData';

/**
 * The classifier runs in the workflow constructor on every leaf of `data` and in the browser
 * workers on what pages write: its cost must be linear in its input, whatever the input.
 * Bounded by operations, not by the clock: every pattern's worst-case number of backtracking
 * steps grows linearly (unit/linearPatterns), and the scans without patterns read their input a
 * fixed number of times by construction; here, that they still find what they should.
 */

/** The largest `data` string the API accepts is under 64 KiB. */
const SIZE = 64 * 1024;

describe('the sensitive data classifier', () => {
  it.each([
    ['a word without @', 'a'.repeat(SIZE)],
    ['a run of @', '@'.repeat(SIZE)],
    ['a@ repeated', 'a@'.repeat(SIZE / 2)],
    ['a domain that never gets its dot', `a@${'b'.repeat(SIZE)}`],
    ['dots without letters after them', `a@b${'.1'.repeat(SIZE / 2)}`],
    ['capitals', 'A'.repeat(SIZE)],
    ['digits', '1'.repeat(SIZE)],
    ['spaced digits', '1 '.repeat(SIZE / 2)],
    ['plus signs and digits', '+1'.repeat(SIZE / 2)],
  ])('finds nothing in %s of 64 KiB', (_name, text) => {
    expect(classifyValue(text)).toBeUndefined();
    expect(keywordMatch(text)).toBeUndefined();
  });

  it('still finds an address at the end of 64 KiB of text', () => {
    expect(classifyValue(`${'a'.repeat(SIZE)} alice@example.org`)?.kind).toBe('email address');
    expect(classifyValue(`${'a@'.repeat(SIZE / 2)}alice@example.org`)?.kind).toBe('email address');
    expect(valueSensitivity(`${'x'.repeat(SIZE)} 4111 1111 1111 1111`)).toBe('credential');
  });

  it('finds an address exactly where the former pattern did', () => {
    const former = /[^\s@<>()[\]\\,;:"']+@[^\s@<>()[\]\\,;:"']+\.[a-z]{2,}/i;
    const alphabet = ['a', 'Z', '1', '@', '.', ' ', ':', '<', '"', '\u00a0', '-'];
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const disagreements: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from(
        { length: 1 + Math.floor(random() * 12) },
        () => alphabet[Math.floor(random() * alphabet.length)],
      ).join('');
      if ((classifyValue(text)?.kind === 'email address') !== former.test(text)) disagreements.push(text);
    }
    expect(disagreements).toEqual([]);
  });

  it('splits camelCase and runs of capitals as before', () => {
    expect(keywordMatch('userPassword')?.kind).toBe('password');
    expect(keywordMatch('HTMLPasswordField')?.kind).toBe('password');
    expect(keywordMatch('IBANNumber')?.kind).toBe('bank account');
    expect(keywordMatch('SSNValue')?.kind).toBe('national id');
  });

  it(`reads names and labels up to ${MAX_WORDS_CHARS} characters`, () => {
    expect(keywordMatch(`${'x '.repeat(MAX_WORDS_CHARS / 2 - 5)}password`)?.kind).toBe('password');
    expect(keywordMatch(`${'x '.repeat(MAX_WORDS_CHARS / 2)}password`)).toBeUndefined();
  });

  it('reads the last words of a deep key path, the leaf key whole', () => {
    let data: Record<string, unknown> = { password: 'hunter22', notes: 'plain text' };
    for (let level = 0; level < 30; level++) data = { [`level${level}${'x'.repeat(200)}`]: data };
    expect(protectedValuesOf(data)).toEqual(['hunter22']);
  });
});
