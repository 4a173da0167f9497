import { BAR_THICKNESS, RULE_THICKNESS } from './rules';
import type { Line, Rule } from './types';

/**
 * Stage 3a: blockquotes, where a bar shows them: a line set in just right of an upright bar that
 * spans it is quoted (a browser prints an HTML blockquote's left border so). Indentation
 * alone does not tell a quote: printed from HTML, a bulleted list's bullets are shapes, not text,
 * and its items are set in as far as a quote, with nothing else to tell them apart.
 */

/** A bar is at least this tall (points): a line's height, not a dash. */
const BAR_MIN_HEIGHT = 6;
/** A quoted line starts within this many font sizes right of its bar. */
const BAR_GAP = 2;
/** Columns of bars looked at per line, nearest first, so a page drawn full of bars costs linear time. */
const COLUMNS_PER_LINE = 8;
/** Bars whose right edges are this close (points) stand in one column. */
const COLUMN_TOLERANCE = 0.5;

/** Bars with one right edge, by their y0. */
export interface BarColumn {
  x1: number;
  bars: Rule[];
  /** reach[i]: the largest y1 among bars[0..i], so one bisection on y0 tells whether any spans a height. */
  reach: number[];
}

/**
 * The bars among a page's thin rectangles, in columns by their right edge: upright, and thicker
 * than a ruling line, so that a table's lines (and the text beside a table) are not taken for one.
 */
export function barsOf(rules: readonly Rule[]): BarColumn[] {
  const bars = rules
    .filter((r) => {
      const width = r.x1 - r.x0;
      return width > RULE_THICKNESS && width <= BAR_THICKNESS && r.y1 - r.y0 >= BAR_MIN_HEIGHT;
    })
    .sort((a, b) => a.x1 - b.x1);
  const columns: BarColumn[] = [];
  for (const bar of bars) {
    const column = columns.at(-1);
    if (column && bar.x1 - column.x1 <= COLUMN_TOLERANCE) column.bars.push(bar);
    else columns.push({ x1: bar.x1, bars: [bar], reach: [] });
  }
  for (const column of columns) {
    column.bars.sort((a, b) => a.y0 - b.y0);
    let reach = -Infinity;
    column.reach = column.bars.map((bar) => (reach = Math.max(reach, bar.y1)));
  }
  return columns;
}

/** The index of the last item whose key is at most `value`, by bisection; -1 for none. */
function lastAtMost<T>(items: readonly T[], key: (item: T) => number, value: number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (key(items[mid]!) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** Whether a bar of the column spans the height `y`. */
function spans(column: BarColumn, y: number): boolean {
  const last = lastAtMost(column.bars, (bar) => bar.y0, y);
  return last >= 0 && column.reach[last]! >= y;
}

/** The lines of a page that a bar (from barsOf) marks as quoted. Code keeps its fence. */
export function quotedLines(lines: readonly Line[], columns: readonly BarColumn[]): Line[] {
  if (columns.length === 0) return [];
  return lines.filter((line) => {
    if (line.mono) return false;
    const middle = line.y + line.size * 0.3;
    const last = lastAtMost(columns, (column) => column.x1, line.x0);
    for (let i = last; i >= 0 && i > last - COLUMNS_PER_LINE; i--) {
      const column = columns[i]!;
      if (line.x0 - column.x1 > line.size * BAR_GAP) return false;
      if (spans(column, middle)) return true;
    }
    return false;
  });
}
