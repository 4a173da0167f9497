/**
 * The passages of the pages read that bear most on the research, for `fast` to write from
 * without a model call per page. Pages are cut into paragraph-sized chunks, each chunk is scored
 * by the research terms it holds (rarer terms across the chunks weigh more), and the best chunks
 * are kept within a character budget. Linear in the pages' text; pure, so a workflow can run it.
 */

export interface ExcerptPage {
  id: number;
  content: string;
}

export interface ExcerptBudget {
  /** Characters of all excerpts together. */
  totalChars: number;
  /** Characters of one chunk at most. */
  chunkChars: number;
  /** Chunks of one page at most. */
  perPage: number;
}

interface Chunk {
  page: number;
  position: number;
  text: string;
  terms: Set<string>;
  score: number;
}

/** Words of a few letters carry no topic; leaving them out keeps "the" from ranking a chunk. */
const MIN_TERM = 3;
const MAX_TERMS = 200;

function termsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length >= MIN_TERM);
}

/** Paragraphs joined up to `max` characters; a longer paragraph is cut at `max`. */
function chunksOf(content: string, max: number): string[] {
  const chunks: string[] = [];
  let current = '';
  for (const paragraph of content.split(/\n\s*\n/)) {
    const text = paragraph.trim();
    if (!text) continue;
    if (current && current.length + text.length + 2 > max) {
      chunks.push(current);
      current = '';
    }
    for (let start = 0; start < text.length; start += max) {
      const piece = text.slice(start, start + max);
      if (current) current = `${current}\n\n${piece}`;
      else current = piece;
      if (current.length >= max) {
        chunks.push(current);
        current = '';
      }
    }
  }
  if (current) chunks.push(current);
  return chunks;
}

/**
 * The best passages of each page for the terms of `research` (the request, its questions and
 * queries), in each page's own order; a page none of whose passages made the cut is absent.
 * Every page with text keeps at least its best passage while the budget lasts, so the writer
 * sees each source read.
 */
export function rankedExcerpts(pages: ExcerptPage[], research: string, budget: ExcerptBudget): Map<number, string[]> {
  const wanted = new Set(termsOf(research).slice(0, MAX_TERMS));
  const chunks: Chunk[] = pages.flatMap((page) =>
    chunksOf(page.content, budget.chunkChars).map((text, position) => ({
      page: page.id,
      position,
      text,
      terms: new Set(termsOf(text).filter((term) => wanted.has(term))),
      score: 0,
    })),
  );
  const holding = new Map<string, number>();
  for (const chunk of chunks) for (const term of chunk.terms) holding.set(term, (holding.get(term) ?? 0) + 1);
  for (const chunk of chunks) {
    for (const term of chunk.terms) chunk.score += Math.log(1 + chunks.length / holding.get(term)!);
  }
  const byScore = [...chunks].sort((a, b) => b.score - a.score || a.page - b.page || a.position - b.position);
  const chosen = new Set<Chunk>();
  const perPage = new Map<number, number>();
  let used = 0;
  const take = (chunk: Chunk) => {
    if (chosen.has(chunk) || used + chunk.text.length > budget.totalChars) return;
    if ((perPage.get(chunk.page) ?? 0) >= budget.perPage) return;
    chosen.add(chunk);
    perPage.set(chunk.page, (perPage.get(chunk.page) ?? 0) + 1);
    used += chunk.text.length;
  };
  const best = new Map<number, Chunk>();
  for (const chunk of byScore) if (!best.has(chunk.page)) best.set(chunk.page, chunk);
  for (const chunk of best.values()) take(chunk);
  for (const chunk of byScore) take(chunk);
  const excerpts = new Map<number, string[]>();
  for (const chunk of chunks) {
    if (!chosen.has(chunk)) continue;
    const list = excerpts.get(chunk.page) ?? [];
    list.push(chunk.text);
    excerpts.set(chunk.page, list);
  }
  return excerpts;
}
