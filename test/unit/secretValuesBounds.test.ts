import { HIDDEN, SecretValues } from '../../src/browser/secretValues';

/** What the former pattern hid: the value a snapshot line ends with. */
function formerHide(values: Set<string>, text: string): string {
  return text.replace(/^(.*\[ref=\w+\][^\n]*?: )(.+)$/gm, (line: string, head: string, shown: string) =>
    values.has(shown) ? `${head}${HIDDEN}` : line,
  );
}

describe('SecretValues on hostile snapshots', () => {
  const secrets = new SecretValues();
  secrets.typed({ tag: 'input', name: 'pin' }, '42', 'caller', false);

  it('hides a line’s value as the former pattern did', () => {
    const tokens = ['[ref=e1]', '[ref=', ': ', ':', ' ', '42', 'x', '\n', ']'];
    let seed = 11;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const disagreements: string[] = [];
    for (let i = 0; i < 20_000; i++) {
      const text = Array.from(
        { length: Math.floor(random() * 10) },
        () => tokens[Math.floor(random() * tokens.length)],
      ).join('');
      if (secrets.hide(text) !== formerHide(new Set(['42']), text)) disagreements.push(text);
    }
    expect(disagreements).toEqual([]);
  });

  it.each([
    ['refs without a value after them', `- text ${'[ref=e0]'.repeat(20_000)}`, false],
    ['refs each followed by a colon', `- text ${'[ref=e0]:'.repeat(20_000)}`, false],
    ['refs, then a value', `- text ${'[ref=e0] x'.repeat(20_000)} [ref=e1]: 42`, true],
  ])('reads a page line of %s', (_name, line, hides) => {
    const hidden = secrets.hide(line);
    expect(hidden.endsWith(`: ${HIDDEN}`)).toBe(hides);
    expect(hidden.length).toBe(hides ? line.length - 2 + HIDDEN.length : line.length);
  });
});
