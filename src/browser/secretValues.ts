import { fieldSensitivity, valueSensitivity } from '../automate/firewall';
import type { FieldFacts, ValueSource } from '../operations/automate';

/** What the model sees instead of a value the caller typed or a credential from `data`. */
export const HIDDEN = '(hidden)';

/**
 * Values typed in a session that the model must not read back from the page: the caller's own
 * answers to input requests (spec: never shown to the model) and credentials from `data`, which
 * the model only ever named by path. A page shows a field's value in its accessibility snapshot
 * (`textbox "Card number" [ref=e18]: 4111 1111 1111 1111`), so every observation and page text
 * is cleaned of them before it leaves the session.
 */
export class SecretValues {
  private readonly values = new Set<string>();

  /** Remembers `value` if it is one the model must not see. */
  typed(field: FieldFacts, value: string, source: ValueSource): void {
    if (value === '') return;
    const credential = fieldSensitivity(field) === 'credential' || valueSensitivity(value) === 'credential';
    if (source === 'caller' || (source === 'data' && credential)) this.values.add(value);
  }

  /**
   * `text` with each remembered value hidden: wherever it appears, when it is long enough not to
   * be mistaken for something else (a ref, a number of the page's), and, whatever its length, as
   * the value a snapshot line ends with.
   */
  hide(text: string): string {
    if (this.values.size === 0) return text;
    let hidden = text;
    for (const value of this.values) if (value.length >= 6) hidden = hidden.split(value).join(HIDDEN);
    return hidden.replace(/[^\n\r\u2028\u2029]+/g, (line) => {
      const split = splitValueLine(line);
      return split && this.values.has(unquoted(split.shown)) ? `${split.head}${HIDDEN}` : line;
    });
  }
}

const REF_MARK = /\[ref=\w+\]/g;

/**
 * A snapshot line's head up to the value it ends with, `… [ref=e18]: ` and `4111 1111`: the
 * first `: ` after the last ref that has one after it. What /^(.*\[ref=\w+\][^\n]*?: )(.+)$/m
 * matched, found in two passes over the line: that pattern went to the line's end from each of
 * its refs, quadratic in a page's line of 20,000 `[ref=0]`.
 */
function splitValueLine(line: string): { head: string; shown: string } | undefined {
  const lastSeparator = line.length < 3 ? -1 : line.lastIndexOf(': ', line.length - 3);
  if (lastSeparator === -1) return undefined;
  let refEnd = -1;
  for (const ref of line.matchAll(REF_MARK)) {
    if (ref.index + ref[0].length > lastSeparator) break;
    refEnd = ref.index + ref[0].length;
  }
  if (refEnd === -1) return undefined;
  const headEnd = line.indexOf(': ', refEnd) + 2;
  return { head: line.slice(0, headEnd), shown: line.slice(headEnd) };
}

/** A snapshot's YAML scalar as text: `"123"` and `'it''s'` unquoted, plain ones as they are. */
function unquoted(scalar: string): string {
  if (scalar.startsWith('"')) {
    try {
      return JSON.parse(scalar) as string;
    } catch {
      return scalar;
    }
  }
  if (scalar.startsWith("'") && scalar.endsWith("'")) return scalar.slice(1, -1).replaceAll("''", "'");
  return scalar;
}
