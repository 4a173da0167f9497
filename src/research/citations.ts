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
export const SOURCES_HEADING = /^#{1,6}\s*(sources|references|bibliography|works cited|citations)\s*:?\s*$/im;
const MAX_CLAIMS = 10;
const MAX_CLAIM_CHARS = 400;

/** The sentences of a Markdown text, one list item or paragraph line at a time. */
function sentences(markdown: string): string[] {
  return markdown
    .split('\n')
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)]|#{1,6}|>)\s+/, '').trim())
    .filter(Boolean)
    .flatMap((line) => line.split(/(?<=[.!?](?:\[\d[^\]]*\])*)\s+(?=[A-Z0-9"“(])/));
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
      .replace(/\s+([.,;:!?])/g, '$1')
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
