/** A page the report may cite: one research fetched and analyzed. */
export interface CitableSource {
  /** The number the writer was given for it. */
  id: number;
  url: string;
  title: string;
}

export interface CitedSource {
  source: CitableSource;
  /** Its number in the final report: by first citation, from 1. */
  number: number;
  /** The report's sentences that cite it. */
  claims: string[];
}

export interface FinalReport {
  report: string;
  cited: CitedSource[];
}

/** `[3]`, `[2, 5]` or `[2][5]` (each bracket alone); not a link's `[text](url)`, not a footnote `[^1]`. */
const MARKER = /([ \t]?)\[(\d{1,4}(?:\s*,\s*\d{1,4})*)\](?!\()/g;
/** A sources list the writer added although told not to: `cited_pages` is the list. */
export const SOURCES_HEADING = /^#{1,6}\s*(sources|references|bibliography|works cited|citations)\s*(?::\s*)?$/im;
const MAX_CLAIMS = 10;
const MAX_CLAIM_CHARS = 400;

/** The sentences of a Markdown text, one list item or paragraph line at a time. */
function sentences(markdown: string): string[] {
  return markdown
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6}|>)\s+/, '').trim())
    .filter(Boolean)
    .flatMap(splitSentences);
}

/**
 * A line cut at each blank run that follows a sentence's end (`.`, `!` or `?`, then any markers
 * `[1]`) and comes before a capital, a digit, a quote or a parenthesis: what
 * `(?<=[.!?](?:\[\d[^\]]*\])*)\s+(?=[A-Z0-9"“(])` cut at. By hand, as that lookbehind went back
 * over a chain of brackets again from each blank run.
 */
export function splitSentences(line: string): string[] {
  const parts: string[] = [];
  let start = 0;
  for (const run of line.matchAll(/\s+/g)) {
    const after = run.index + run[0].length;
    if (after < line.length && SENTENCE_START.test(line[after]!) && endsSentence(line, run.index)) {
      parts.push(line.slice(start, run.index));
      start = after;
    }
  }
  parts.push(line.slice(start));
  return parts;
}

const SENTENCE_START = /[A-Z0-9"“(]/;
const SENTENCE_END = '.!?';

/** Whether `line` before `end` ends with `.`, `!` or `?` and then markers `[<digit>...]`. */
function endsSentence(line: string, end: number): boolean {
  let close = end - 1;
  for (;;) {
    if (close < 0) return false;
    if (SENTENCE_END.includes(line[close]!)) return true;
    if (line[close] !== ']') return false;
    // A marker ends here and opens at a `[` and a digit after the `]` before it.
    const previous = close >= 1 ? line.lastIndexOf(']', close - 1) : -1;
    let chained = false;
    for (let open = previous + 1; open < close - 1; open++) {
      if (line[open] !== '[' || !/\d/.test(line[open + 1]!)) continue;
      if (open >= 1 && SENTENCE_END.includes(line[open - 1]!)) return true;
      if (previous >= 0 && open === previous + 1) chained = true;
    }
    if (!chained) return false;
    close = previous;
  }
}

/**
 * Makes a draft's citations trustworthy: only numbers of sources research analyzed survive
 * (any other marker is dropped), they are renumbered by first appearance, and a source list
 * the model wrote goes: the sources are `cited_pages`, in the order of the numbers, so an app
 * that renders them does not show them twice. Each cited source keeps the sentences that cite
 * it as its claims.
 */
export function finalizeReport(draft: string, sources: CitableSource[]): FinalReport {
  const byId = new Map(sources.map((source) => [source.id, source]));
  const numbers = new Map<number, number>();
  const heading = SOURCES_HEADING.exec(draft);
  const body = (heading ? draft.slice(0, heading.index) : draft).trimEnd();
  const report = body.replace(MARKER, (_marker, space: string, list: string) => {
    const ids = [...new Set(list.split(',').map((n) => Number(n.trim())))].filter((id) => byId.has(id));
    // A marker of nothing read goes, with the space before it.
    if (ids.length === 0) return '';
    for (const id of ids) if (!numbers.has(id)) numbers.set(id, numbers.size + 1);
    const marks = ids
      .map((id) => numbers.get(id)!)
      .sort((a, b) => a - b)
      .map((n) => `[${n}]`)
      .join('');
    return `${space}${marks}`;
  });
  const cited: CitedSource[] = [...numbers.entries()].map(([id, number]) => ({
    source: byId.get(id)!,
    number,
    claims: [],
  }));
  const byNumber = new Map(cited.map((entry) => [entry.number, entry]));
  for (const sentence of sentences(report)) {
    const marks = [...sentence.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    if (marks.length === 0) continue;
    const claim = sentence
      .replace(/\[\d+\]/g, '')
      // A blank run goes before punctuation only; `\s+([.,;:!?])` rescanned a run from each of its starts.
      .replace(/\s+/g, (run: string, at: number, text: string) =>
        '.,;:!?'.includes(text[at + run.length] ?? 'x') ? '' : run,
      )
      .replace(/\*\*|__/g, '')
      .trim()
      .slice(0, MAX_CLAIM_CHARS);
    if (!claim) continue;
    for (const number of new Set(marks)) {
      const entry = byNumber.get(number);
      if (entry && entry.claims.length < MAX_CLAIMS && !entry.claims.includes(claim)) entry.claims.push(claim);
    }
  }
  return { report, cited };
}
