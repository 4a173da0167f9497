import { headingLevels } from './headings';
import type { OutlineEntry } from './outline';
import type { Block, Line, PageItem, Table } from './types';

/**
 * Stage 5: lines become blocks. Monospaced runs of lines are code, kept line by line with their
 * indentation; headings by the document's type (see headings.ts); bullet and numbered lines are
 * list items, nested by their indentation; lines a quote's bar marks (quotes.ts) are a
 * blockquote's paragraphs; the rest are paragraphs, split where the gap between lines opens. A
 * paragraph goes on across a column or page break unless its last line ended a sentence. Tables
 * stand where they were, and a table going on over a page break is one table.
 */

/** A vertical gap this many font sizes wide between lines starts a new block. */
const PARAGRAPH_GAP = 1.45;
/** Markers this many points apart are at different depths of a list. */
const INDENT_STEP = 6;
const BULLET = /^([•◦▪‣●○■□∙·–\-*])\s+/;
const NUMBERED = /^(\d{1,3}|[a-z])[.)]\s+/;
const SENTENCE_END = /[.!?:;)]$/;
/** The word before a line's closing hyphen ("compres" of "the compres-"), scanned back from the end. */
function hyphenated(text: string): string | undefined {
  if (!text.endsWith('-')) return undefined;
  let start = text.length - 1;
  while (start > 0 && /[A-Za-z]/.test(text[start - 1]!)) start--;
  return text.length - 1 - start >= 2 ? text.slice(start, -1) : undefined;
}

interface Words {
  has(word: string): boolean;
}

/** Joins a line to the text before it, rejoining a word the line break hyphenated. */
function join(text: string, next: string, words: Words): string {
  const hyphen = hyphenated(text);
  const head = /^([a-z]+)/.exec(next);
  if (hyphen && head) {
    const whole = `${hyphen}${head[1]}`.toLowerCase();
    const compound = `${hyphen}-${head[1]}`.toLowerCase();
    if (words.has(compound) && !words.has(whole)) return text + next;
    return text.slice(0, -1) + next;
  }
  return `${text} ${next}`;
}

function wordsOf(lines: readonly Line[]): Words {
  const words = new Set<string>();
  for (const line of lines)
    for (const m of line.text.matchAll(/[A-Za-z]+(?:-[A-Za-z]+)*/g)) words.add(m[0].toLowerCase());
  return words;
}

const isLine = (item: PageItem): item is Line => !('kind' in item);

function sameRows(a: string[] | undefined, b: string[] | undefined): boolean {
  return !!a && !!b && a.length === b.length && a.every((cell, i) => cell === b[i]);
}

/** The vertical gap from one item to the next line of its page's column, or undefined across a break. */
function gapBetween(above: PageItem | undefined, line: PageItem | undefined): number | undefined {
  if (!above || !line || !isLine(above) || !isLine(line)) return undefined;
  return above.page === line.page && above.y > line.y ? above.y - line.y : undefined;
}

export function blocksOf(
  items: readonly PageItem[],
  outline: readonly OutlineEntry[] = [],
  quoted: ReadonlySet<Line> = new Set(),
): Block[] {
  const lines = items.filter(isLine);
  const alone = items.flatMap((item, i) => {
    if (!isLine(item)) return [];
    const before = gapBetween(items[i - 1], item);
    const after = gapBetween(item, items[i + 1]) ?? Infinity;
    const apart = before === undefined || before > Math.max(item.size, (items[i - 1] as Line).size) * PARAGRAPH_GAP;
    return [apart && after > item.size * PARAGRAPH_GAP];
  });
  const levels = headingLevels(lines, alone, outline);
  const levelOf = new Map(lines.map((line, i) => [line, levels[i]!]));
  const words = wordsOf(lines);
  const blocks: Block[] = [];
  let indents: number[] = [];
  let previous: Line | undefined;
  let open: Block | undefined;
  const push = (block: Block) => {
    blocks.push(block);
    open = block;
  };
  const gapTo = (line: Line) =>
    previous && previous.page === line.page && previous.y > line.y ? previous.y - line.y : undefined;
  items.forEach((item, i) => {
    if (!isLine(item)) {
      addTable(blocks, item);
      open = undefined;
      previous = undefined;
      return;
    }
    const line = item;
    const gap = gapTo(line);
    const broken = gap === undefined;
    const apart = broken || gap > Math.max(line.size, previous!.size) * PARAGRAPH_GAP;
    previous = line;
    if (line.mono) {
      const indent = ' '.repeat(Math.max(0, Math.round((line.x0 - codeLeft(items, i)) / line.charWidth)));
      if (open?.kind === 'code' && !(gap !== undefined && gap > line.size * PARAGRAPH_GAP * 2))
        open.lines.push(indent + line.text);
      else push({ kind: 'code', lines: [indent + line.text] });
      return;
    }
    const level = levelOf.get(line)!;
    if (level > 0) {
      if (open?.kind === 'heading' && open.level === level && !apart) open.text = `${open.text} ${line.text}`;
      else push({ kind: 'heading', level, text: line.text });
      indents = [];
      return;
    }
    if (quoted.has(line)) {
      const paragraphs = open?.kind === 'quote' ? open.paragraphs : undefined;
      const last = paragraphs ? paragraphs.length - 1 : -1;
      if (paragraphs && (broken ? !SENTENCE_END.test(paragraphs[last]!) : !apart))
        paragraphs[last] = join(paragraphs[last]!, line.text, words);
      else if (paragraphs) paragraphs.push(line.text);
      else push({ kind: 'quote', paragraphs: [line.text] });
      indents = [];
      return;
    }
    const marker = BULLET.exec(line.text) ?? NUMBERED.exec(line.text);
    if (marker) {
      if (open?.kind !== 'item') indents = [];
      while (indents.length > 0 && indents[indents.length - 1]! > line.x0 + INDENT_STEP) indents.pop();
      if (indents.length === 0 || line.x0 > indents[indents.length - 1]! + INDENT_STEP) indents.push(line.x0);
      const numbered = /^\d/.test(marker[1]!) ? `${marker[1]}.` : '-';
      push({ kind: 'item', depth: indents.length - 1, marker: numbered, text: line.text.slice(marker[0].length) });
      return;
    }
    if (open?.kind === 'item' && !apart && line.x0 > indents[indents.length - 1]! + INDENT_STEP / 2) {
      open.text = join(open.text, line.text, words);
      return;
    }
    const carriesOn = broken ? open?.kind === 'paragraph' && !SENTENCE_END.test(open.text) : !apart;
    if (open?.kind === 'paragraph' && carriesOn) open.text = join(open.text, line.text, words);
    else push({ kind: 'paragraph', text: line.text });
    indents = [];
  });
  return blocks;
}

/** The left edge of the code block a monospaced line belongs to: the least indented of its run. */
function codeLeft(items: readonly PageItem[], at: number): number {
  let left = Infinity;
  for (let i = at; i >= 0; i--) {
    const item = items[i]!;
    if (!isLine(item) || !item.mono) break;
    left = Math.min(left, item.x0);
    if (at - i > CODE_LOOKAROUND) break;
  }
  for (let i = at + 1; i < items.length && i - at <= CODE_LOOKAROUND; i++) {
    const item = items[i]!;
    if (!isLine(item) || !item.mono) break;
    left = Math.min(left, item.x0);
  }
  return left;
}

/** How far codeLeft looks either way, so a long code block costs linear time, not quadratic. */
const CODE_LOOKAROUND = 40;

function addTable(blocks: Block[], table: Table): void {
  const last = blocks[blocks.length - 1];
  if (last?.kind === 'table' && last.page < table.page && last.rows[0]?.length === table.rows[0]?.length) {
    const rows = sameRows(last.rows[0], table.rows[0]) ? table.rows.slice(1) : table.rows;
    last.rows.push(...rows);
    last.page = table.page;
    return;
  }
  blocks.push({ ...table, rows: [...table.rows] });
}
