/**
 * `count` texts of up to `maxTokens` tokens drawn from `tokens`, the same on every run: inputs on
 * which a hand scan is checked against the regular expression it replaced.
 */
export function randomTexts(tokens: readonly string[], count: number, maxTokens = 12, seed = 11): string[] {
  let state = seed;
  const random = () => (state = (state * 48271) % 2147483647) / 2147483647;
  return Array.from({ length: count }, () =>
    Array.from(
      { length: Math.floor(random() * (maxTokens + 1)) },
      () => tokens[Math.floor(random() * tokens.length)],
    ).join(''),
  );
}

/** The texts on which `now` and `former` disagree (or one throws and the other does not). */
export function disagreements<T>(
  texts: readonly string[],
  now: (text: string) => T,
  former: (text: string) => T,
): string[] {
  const outcome = (read: (text: string) => T, text: string) => {
    try {
      return JSON.stringify({ value: read(text) });
    } catch (err) {
      return JSON.stringify({ thrown: err instanceof Error ? err.name : 'thrown' });
    }
  };
  return texts.filter((text) => outcome(now, text) !== outcome(former, text));
}
