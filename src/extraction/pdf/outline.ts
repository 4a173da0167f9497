import type { PDFDocumentProxy } from 'pdfjs-dist';

/**
 * The document's outline (bookmarks), where it has one: the titles of its headings and their
 * depth, which say which lines are headings and at what level better than type sizes can
 * (headings.ts). Read breadth first into a bounded list, so a hostile outline, deep or wide,
 * costs no more than its first entries.
 */

/** Outline entries read; past this a document's outline is noise (or an attack). */
export const MAX_OUTLINE_ENTRIES = 2_000;
/** Entries deeper than this are not read: Markdown has six heading levels. */
export const MAX_OUTLINE_DEPTH = 6;
/** A title longer than this is no heading's (headings.ts takes lines up to 150 characters). */
const MAX_TITLE_CHARS = 300;
/** A line starts a title wrapped over lines when it holds at least this share of it. */
const MIN_PREFIX_SHARE = 0.4;

export interface OutlineEntry {
  key: string;
  depth: number;
}

/** Titles and lines compare by letters and digits only: an outline's quotes and spacing can differ from the page's. */
export function headingKey(text: string): string {
  return text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '');
}

interface OutlineNode {
  title: string;
  items: OutlineNode[];
}

export async function readOutline(doc: PDFDocumentProxy): Promise<OutlineEntry[]> {
  let roots: OutlineNode[] | null;
  try {
    roots = await doc.getOutline();
  } catch {
    // A broken outline costs the headings it would have given, not the document.
    return [];
  }
  const entries: OutlineEntry[] = [];
  const queue: { node: OutlineNode; depth: number }[] = (roots ?? [])
    .slice(0, MAX_OUTLINE_ENTRIES)
    .map((node) => ({ node, depth: 0 }));
  for (let i = 0; i < queue.length && entries.length < MAX_OUTLINE_ENTRIES; i++) {
    const { node, depth } = queue[i]!;
    const key = typeof node.title === 'string' && node.title.length <= MAX_TITLE_CHARS ? headingKey(node.title) : '';
    if (key) entries.push({ key, depth });
    if (depth + 1 >= MAX_OUTLINE_DEPTH || !Array.isArray(node.items)) continue;
    for (const child of node.items) {
      if (queue.length >= MAX_OUTLINE_ENTRIES) break;
      queue.push({ node: child, depth: depth + 1 });
    }
  }
  return entries;
}

export interface OutlineMatcher {
  /**
   * The outline depth of a line that is an entry's title, starts one (`mayStart`: it stands like
   * a heading) or goes on with the title the line before started; undefined for other lines.
   * Each entry stands for one line (or run of lines) only, the first that matches.
   */
  depthOf(text: string, mayStart: boolean): number | undefined;
}

export function outlineMatcher(entries: readonly OutlineEntry[]): OutlineMatcher {
  const depths = new Map<string, number[]>();
  for (const { key, depth } of entries) {
    const list = depths.get(key);
    if (list) list.push(depth);
    else depths.set(key, [depth]);
  }
  // Titles used up leave the list, so the title a line starts is the first at or after it: log n a line.
  const sorted = [...depths.keys()].sort();
  const firstAtOrAfter = (key: string): number => {
    let lo = 0;
    let hi = sorted.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (sorted[mid]! < key) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const take = (title: string): number => {
    const list = depths.get(title)!;
    const depth = list.shift()!;
    if (list.length === 0) {
      depths.delete(title);
      sorted.splice(firstAtOrAfter(title), 1);
    }
    return depth;
  };
  let pending: { rest: string; depth: number } | undefined;
  return {
    depthOf(text, mayStart) {
      const key = headingKey(text);
      const carried = pending;
      pending = undefined;
      if (!key) return undefined;
      if (carried && carried.rest.startsWith(key)) {
        const rest = carried.rest.slice(key.length);
        if (rest) pending = { rest, depth: carried.depth };
        return carried.depth;
      }
      if (!mayStart) return undefined;
      if (depths.has(key)) return take(key);
      const title = sorted[firstAtOrAfter(key)];
      if (title === undefined || !title.startsWith(key) || key.length < title.length * MIN_PREFIX_SHARE)
        return undefined;
      const depth = take(title);
      pending = { rest: title.slice(key.length), depth };
      return depth;
    },
  };
}
