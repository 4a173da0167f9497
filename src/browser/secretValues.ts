import { base64Cores, fieldSensitivity, valueSensitivity } from '../automate/firewall';
import type { FieldFacts, FirewallPolicy, FirewallRules, ValueSource } from '../operations/automate';

/** What the model sees instead of a value the caller typed or a credential from `data`. */
export const HIDDEN = '(hidden)';

/** Shorter values are hidden as a snapshot field's value only: anywhere else they would hide the page's words. */
const HIDDEN_ANYWHERE_LENGTH = 6;

const NAMED_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/**
 * The forms a page shows or sends a value in without meaning to hide it: as it is, URL-encoded
 * (once or twice, as a component, form or address), as HTML entities (named, or every character
 * as a decimal or hex one), and its base64 at each alignment (`btoa(JSON.stringify(...))`).
 * Escapes match in either case (`%2f`, `&#X41;`).
 */
function encodedForms(value: string): string[] {
  const component = encodeURIComponent(value);
  const characters = [...value].map((c) => c.codePointAt(0)!);
  return [
    value,
    component,
    encodeURIComponent(component),
    new URLSearchParams({ v: value }).toString().slice(2),
    encodeURI(value),
    value.replace(/[&<>"']/g, (c) => NAMED_ENTITIES[c]!),
    characters.map((code) => `&#${code};`).join(''),
    characters.map((code) => `&#x${code.toString(16)};`).join(''),
    ...base64Cores(value),
  ];
}

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * What a session protects: values the model must not read back from the page (the caller's own
 * answers to input requests, spec: never shown to the model, and credentials from `data`, which
 * the model only ever named by path) and values no address for an untrusted host may carry. A
 * page shows a field's value in its accessibility snapshot (`textbox "Card number" [ref=e18]:
 * 4111 1111 1111 1111`), and may echo it anywhere else, so everything the session answers with
 * about the page is cleaned of them before it leaves the session.
 */
export class SecretValues {
  private readonly values = new Set<string>();
  private readonly guarded = new Set<string>();
  /** Every form of every value long enough to be hidden anywhere, as one alternation of literals. */
  private pattern?: RegExp;

  /**
   * Remembers values the model must not see whatever field they go into and whether they were
   * typed yet: the credentials of `data` (by key path) when the session opens, the caller's
   * answers before they are typed (a field's validation message may echo them).
   */
  protect(values: readonly string[]): void {
    for (const value of values) if (value !== '') this.values.add(value);
    this.pattern = undefined;
  }

  /** Remembers values the caller gave that no address for an untrusted host may carry. */
  guard(values: readonly string[]): void {
    for (const value of values) this.guarded.add(value);
  }

  /** The firewall's policy for a step: its rules, with the values this session guards. */
  policy(rules: FirewallRules): FirewallPolicy {
    return { ...rules, protectedValues: [...this.guarded] };
  }

  /**
   * Remembers `value` if it is one the model must not see: the caller's, or a credential of the
   * data, by its path (`credential`) whatever the field, or by the field's facts or its looks.
   */
  typed(field: FieldFacts, value: string, source: ValueSource, credential: boolean): void {
    if (value === '') return;
    const secret = credential || fieldSensitivity(field) === 'credential' || valueSensitivity(value) === 'credential';
    if (source === 'caller' || (source === 'data' && secret)) this.protect([value]);
  }

  /**
   * `text` with each remembered value hidden: in any of its encoded forms wherever it appears,
   * when it is long enough not to be mistaken for something else (a ref, a number of the
   * page's), and, whatever its length, as the value a snapshot line ends with. One pass of a
   * pattern of literals: time linear in the text, whatever the page put in it.
   */
  hide(text: string): string {
    if (this.values.size === 0) return text;
    const hidden = text.replace(this.anywhere(), HIDDEN);
    return hidden.replace(/[^\n\r\u2028\u2029]+/g, (line) => {
      const split = splitValueLine(line);
      return split && this.values.has(unquoted(split.shown)) ? `${split.head}${HIDDEN}` : line;
    });
  }

  private anywhere(): RegExp {
    if (!this.pattern) {
      const forms = [...this.values]
        .filter((value) => value.length >= HIDDEN_ANYWHERE_LENGTH)
        .flatMap(encodedForms)
        // Longest first: where an encoded form starts with the value's own text, all of it goes.
        .sort((a, b) => b.length - a.length);
      this.pattern = forms.length === 0 ? /(?!)/g : new RegExp([...new Set(forms)].map(literal).join('|'), 'gi');
    }
    return this.pattern;
  }
}

/** What the session answers with about the page, with `secrets` hidden from each of its texts. */
export function hiddenOutcome<T extends { url: string; title: string; error?: string }>(
  secrets: SecretValues,
  outcome: T,
): T {
  return {
    ...outcome,
    url: secrets.hide(outcome.url),
    title: secrets.hide(outcome.title),
    ...(outcome.error === undefined ? {} : { error: secrets.hide(outcome.error) }),
  };
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
