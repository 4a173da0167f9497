import { isSpace, isWordChar } from './scan';

/**
 * `text` with each tag replaced by `by`: from a `<` that `opens` accepts to the next `>`, as
 * `/<[^>]*>/g` reads tags. Once a `<` has no `>` after it, no later one has.
 */
export function replaceTags(
  text: string,
  by: string,
  opens: (text: string, at: number) => boolean = () => true,
): string {
  let out = '';
  let kept = 0;
  for (let lt = text.indexOf('<'); lt >= 0; lt = text.indexOf('<', lt + 1)) {
    if (!opens(text, lt)) continue;
    const gt = text.indexOf('>', lt + 1);
    if (gt < 0) break;
    out += text.slice(kept, lt) + by;
    kept = gt + 1;
    lt = gt;
  }
  return out + text.slice(kept);
}

/** Whether `<name` at `at` of `lower` (lower-cased HTML) opens that element: a word boundary follows. */
export function opensElement(lower: string, at: number, name: string): boolean {
  return lower[at] === '<' && lower.startsWith(name, at + 1) && !isWordChar(lower[at + 1 + name.length]);
}

/**
 * Where the element `name` opened before `from` ends in `lower` (lower-cased HTML): just after
 * the first `</name\s*>`, or -1 when nothing closes it (then nothing later closes one either).
 */
export function elementEnd(lower: string, name: string, from: number): number {
  const closer = `</${name}`;
  for (let at = lower.indexOf(closer, from); at >= 0; at = lower.indexOf(closer, at + closer.length)) {
    let end = at + closer.length;
    while (isSpace(lower[end])) end++;
    if (lower[end] === '>') return end + 1;
  }
  return -1;
}

/**
 * The elements `names` (lower case) of `lower` (lower-cased HTML), whole, from their opening to
 * their first closing tag, in order, as `/<(name|...)\b[\s\S]*?<\/\1\s*>/gi` finds them.
 */
export function* rawElements(
  lower: string,
  names: readonly string[],
): Generator<{ name: string; start: number; end: number }> {
  const unclosed = new Set<string>();
  for (let lt = lower.indexOf('<'); lt >= 0 && unclosed.size < names.length; lt = lower.indexOf('<', lt + 1)) {
    const name = names.find((candidate) => !unclosed.has(candidate) && opensElement(lower, lt, candidate));
    if (name === undefined) continue;
    const end = elementEnd(lower, name, lt + 1 + name.length);
    if (end < 0) {
      unclosed.add(name);
      continue;
    }
    yield { name, start: lt, end };
    lt = end - 1;
  }
}
