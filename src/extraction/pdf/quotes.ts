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
/** Bars looked at per line, nearest first, so a page drawn full of bars costs linear time. */
const BARS_PER_LINE = 8;

/**
 * The bars among a page's thin rectangles, by their right edge: upright, and thicker than a
 * ruling line, so that a table's lines (and the text beside a table) are not taken for one.
 */
export function barsOf(rules: readonly Rule[]): Rule[] {
  return rules
    .filter((r) => {
      const width = r.x1 - r.x0;
      return width > RULE_THICKNESS && width <= BAR_THICKNESS && r.y1 - r.y0 >= BAR_MIN_HEIGHT;
    })
    .sort((a, b) => a.x1 - b.x1);
}

/** The index of the last bar whose right edge is at most x, by bisection; -1 for none. */
function lastAtMost(bars: readonly Rule[], x: number): number {
  let lo = 0;
  let hi = bars.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (bars[mid]!.x1 <= x) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The lines of a page that a bar (from barsOf) marks as quoted. Code keeps its fence. */
export function quotedLines(lines: readonly Line[], bars: readonly Rule[]): Line[] {
  if (bars.length === 0) return [];
  return lines.filter((line) => {
    if (line.mono) return false;
    const middle = line.y + line.size * 0.3;
    const last = lastAtMost(bars, line.x0);
    for (let i = last; i >= 0 && i > last - BARS_PER_LINE; i--) {
      const bar = bars[i]!;
      if (line.x0 - bar.x1 > line.size * BAR_GAP) return false;
      if (bar.y0 <= middle && middle <= bar.y1) return true;
    }
    return false;
  });
}
