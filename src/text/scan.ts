/**
 * Hand scans for text a page, a model or a search engine wrote. Each looks at a character a
 * bounded number of times, where a backtracking regular expression of the same meaning would
 * scan a long run again from every start in it.
 */

const SPACE = /\s/;
const WORD = /\w/;

/** Whether `char` is one `\s` matches (an absent character is not). */
export function isSpace(char: string | undefined): boolean {
  return char !== undefined && SPACE.test(char);
}

/** Whether `char` is one `\w` matches (an absent character is not). */
export function isWordChar(char: string | undefined): boolean {
  return char !== undefined && WORD.test(char);
}

/**
 * The first index at or after `from` whose character `wanted` accepts, or the text's length.
 * Asked with a `from` that never decreases, as a scan going forward asks, it looks at each
 * character once in all: a later question that starts before the last answer gets that answer.
 */
export function forwardSearch(text: string, wanted: (char: string) => boolean): (from: number) => number {
  let askedFrom = 0;
  let answer = -1;
  return (from) => {
    if (from >= askedFrom && from <= answer) return answer;
    let at = from;
    while (at < text.length && !wanted(text[at]!)) at++;
    askedFrom = from;
    answer = at;
    return at;
  };
}

/** `text` with ASCII letters in lower case and nothing else changed, so indexes still agree. */
export function asciiLowerCase(text: string): string {
  return text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase());
}

/** `text` without the run of `chars` it ends with. */
export function withoutTrailing(text: string, chars: string): string {
  let end = text.length;
  while (end > 0 && chars.includes(text[end - 1]!)) end--;
  return text.slice(0, end);
}
