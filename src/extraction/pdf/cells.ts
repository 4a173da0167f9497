import type { Fragment } from './types';

/** Vertical runs this close (in font sizes) in one cell are one line of it. */
const CELL_LINE = 0.5;
/** A horizontal gap this wide (in font sizes) between two runs of a cell is a space. */
const WORD_GAP = 0.15;

/**
 * Whether a cell's line break split a word: a narrow column breaks a word too long for it where
 * the line is full, with no hyphen ("Architectur" / "es"). The line before is then one word
 * reaching the column's right edge (`right`, the furthest any of its lines reach), so not even
 * the next line's first letter would have fitted after it; a line that ended between words
 * left room for it, or held a space.
 */
function splitsWord(line: string, end: number, next: Fragment, right: number): boolean {
  const first = next.str.trimStart();
  if (!/\p{L}$/u.test(line) || !/^\p{Ll}/u.test(first) || /\s/.test(line)) return false;
  const letter = next.width / Math.max(1, next.str.length);
  return end + letter > right;
}

/**
 * A cell's runs as one line of text, pipes escaped: its wrapped lines join with a space, or
 * with none where the wrap split a word (splitsWord). `right` is the column's right edge, where
 * the table knows it.
 */
export function cellText(runs: Fragment[], right = Infinity): string {
  let text = '';
  let line = '';
  let last: Fragment | undefined;
  for (const f of runs) {
    if (!f.str) continue;
    if (last) {
      const newLine = Math.abs(last.y - f.y) > f.size * CELL_LINE;
      const gap = f.x - (last.x + last.width);
      if (newLine) {
        if (!splitsWord(line.trim(), last.x + last.width, f, right)) text += ' ';
        line = '';
      } else if (gap > f.size * WORD_GAP) {
        text += ' ';
        line += ' ';
      }
    }
    text += f.str;
    line += f.str;
    last = f;
  }
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}
