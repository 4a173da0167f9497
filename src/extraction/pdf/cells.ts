import type { Fragment } from './types';

/** Vertical runs this close (in font sizes) in one cell are one line of it. */
const CELL_LINE = 0.5;
/** A horizontal gap this wide (in font sizes) between two runs of a cell is a space. */
const WORD_GAP = 0.15;

/** A cell's runs as one line of text, its wrapped lines joined with a space, pipes escaped. */
export function cellText(runs: Fragment[]): string {
  let text = '';
  let last: Fragment | undefined;
  for (const f of runs) {
    if (last) {
      const newLine = Math.abs(last.y - f.y) > f.size * CELL_LINE;
      const gap = f.x - (last.x + last.width);
      if (newLine || gap > f.size * WORD_GAP) text += ' ';
    }
    text += f.str;
    if (f.str) last = f;
  }
  return text.replace(/\s+/g, ' ').replace(/\|/g, '\\|').trim();
}
