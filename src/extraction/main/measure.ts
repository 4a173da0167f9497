/**
 * Text statistics of every element of a subtree, gathered in one walk, so the stages that
 * follow compare sizes without reading `textContent` again and again (which on linkedom walks
 * the subtree each time and made the extractor slow).
 */

export interface TextStats {
  /** Non-whitespace characters of the element's text. */
  chars: number;
  /** Of those, characters inside links. */
  linkChars: number;
  /** Weight of the prose blocks inside (long, punctuated text that is not links): where content is. */
  content: number;
  /** Number of links. */
  links: number;
  /** Short text blocks inside that read as a price ("$19.99", "12,50 €"). */
  prices: number;
  /** Characters inside product grids: runs of many like siblings, most of them priced. */
  listed: number;
}

export type Measures = Map<Element, TextStats>;

const TEXT_NODE = 3;
const ELEMENT_NODE = 1;
const SENTENCE_PUNCTUATION = /[.,;:!?。，、！？]/g;
/** A price: a currency sign or code before a number, or after it. */
const PRICE = /[$€£¥₹]\s?\d|\b(USD|EUR|GBP|CHF|AUD|CAD|Rs\.?)\s?\d|\d\s?(€|£|kr|zł|Kč|₽)(?!\p{L})/u;
/** A block longer than this is prose that may mention a price, not a price label. */
const PRICE_BLOCK_CHARS = 80;
/** A run of at least this many like siblings, most of them priced, is a product grid. */
const MIN_GRID_ITEMS = 8;
/** A block's own text shorter than this (without links) is a label, not prose. */
const MIN_PROSE_CHARS = 10;
/** How much of a block's text is sampled to count its punctuation. */
const SAMPLE_CHARS = 300;
/** A block's text at least this long, unpunctuated over the whole sample, is a word list. */
const WORD_LIST_CHARS = SAMPLE_CHARS;

/** Tags that start a text block of their own; everything else is inline and belongs to the block around it. */
const BLOCKS = new Set([
  'P',
  'DIV',
  'LI',
  'TD',
  'TH',
  'DD',
  'DT',
  'PRE',
  'BLOCKQUOTE',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'SECTION',
  'ARTICLE',
  'FIGCAPTION',
  'MAIN',
  'BODY',
  'TABLE',
  'TR',
  'UL',
  'OL',
  'DL',
  'FIGURE',
  'HEADER',
  'FOOTER',
  'ASIDE',
  'NAV',
  'FORM',
  'ADDRESS',
  'DETAILS',
  'SUMMARY',
  'CAPTION',
  'BR',
]);

interface Block {
  chars: number;
  linkChars: number;
  sample: string;
}

/** Whitespace exactly as `\s` defines it, by character code. */
function isSpace(code: number): boolean {
  if (code < 128) return code === 32 || (code >= 9 && code <= 13);
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/**
 * Characters of `text` that are not whitespace. A char-code loop: this runs over every text node
 * of the page several times, and a regular expression per character was a fifth of the time.
 */
function nonSpace(text: string): number {
  let count = 0;
  for (let i = 0; i < text.length; i++) if (!isSpace(text.charCodeAt(i))) count++;
  return count;
}

/** Content earned by one block's own text: its non-link length, more when punctuated like sentences. */
function blockContent(block: Block): number {
  const plain = block.chars - block.linkChars;
  if (plain < MIN_PROSE_CHARS) return 0;
  const punctuation = block.sample.match(SENTENCE_PUNCTUATION)?.length ?? 0;
  // A long run of words with no punctuation at all is a list of names (the towns a shop delivers to), not sentences.
  if (punctuation === 0 && plain >= WORD_LIST_CHARS) return 0;
  return plain * (1 + Math.min(punctuation, 10) * 0.05);
}

/** The tag and class of a child that may be one of a run of like items; bare blocks are not. */
function runKey(el: Element): string | undefined {
  const cls = el.getAttribute('class');
  if (!cls && el.tagName !== 'LI' && el.tagName !== 'ARTICLE') return undefined;
  return `${el.tagName} ${cls ?? ''}`;
}

interface Run {
  items: number;
  priced: number;
  chars: number;
  listed: number;
}

/** Characters of `el`'s children that are a product grid's items, and of grids inside the rest. */
function listedChars(el: Element, measures: Measures): number {
  const runs = new Map<string, Run>();
  let listed = 0;
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    const stats = measures.get(child);
    const key = runKey(child);
    if (!stats || key === undefined) {
      listed += stats?.listed ?? 0;
      continue;
    }
    const run = runs.get(key) ?? { items: 0, priced: 0, chars: 0, listed: 0 };
    run.items++;
    if (stats.prices > 0) run.priced++;
    run.chars += stats.chars;
    run.listed += stats.listed;
    runs.set(key, run);
  }
  for (const run of runs.values()) {
    const grid = run.items >= MIN_GRID_ITEMS && 2 * run.priced >= run.items;
    listed += grid ? run.chars : run.listed;
  }
  return listed;
}

/** Walks `root` once and returns the stats of each element in it. */
export function measure(root: Element): Measures {
  const measures: Measures = new Map();
  const visit = (el: Element, inLink: boolean, outer: Block): TextStats => {
    const stats: TextStats = { chars: 0, linkChars: 0, content: 0, links: 0, prices: 0, listed: 0 };
    const isLink = el.tagName === 'A';
    if (isLink) stats.links = 1;
    const link = inLink || isLink;
    const own = BLOCKS.has(el.tagName) || el === root;
    const block: Block = own ? { chars: 0, linkChars: 0, sample: '' } : outer;
    let children = 0;
    for (let child = el.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === TEXT_NODE) {
        const data = (child as Text).data;
        const n = nonSpace(data);
        if (n === 0) continue;
        stats.chars += n;
        block.chars += n;
        if (link) {
          stats.linkChars += n;
          block.linkChars += n;
        }
        if (block.sample.length < SAMPLE_CHARS) block.sample += data;
      } else if (child.nodeType === ELEMENT_NODE) {
        const sub = visit(child as Element, link, block);
        stats.chars += sub.chars;
        stats.linkChars += sub.linkChars;
        stats.links += sub.links;
        stats.content += sub.content;
        stats.prices += sub.prices;
        stats.listed += sub.listed;
        children++;
      }
    }
    if (own) {
      stats.content += blockContent(block);
      const short = block.chars > 0 && block.chars <= PRICE_BLOCK_CHARS;
      if (short && PRICE.test(block.sample)) stats.prices++;
    }
    if (children >= MIN_GRID_ITEMS) stats.listed = listedChars(el, measures);
    measures.set(el, stats);
    return stats;
  };
  visit(root, false, { chars: 0, linkChars: 0, sample: '' });
  return measures;
}

export const EMPTY_STATS: TextStats = {
  chars: 0,
  linkChars: 0,
  content: 0,
  links: 0,
  prices: 0,
  listed: 0,
};

export function linkDensity(stats: TextStats): number {
  return stats.chars === 0 ? 0 : stats.linkChars / stats.chars;
}
