import type { Line } from './types';

/**
 * Headings from the document's own type: the body size is the size most of its prose characters
 * are set in (code does not count, so a document that is mostly code still finds its prose), a
 * line clearly larger is a heading, and a bold line at body size standing alone is one too.
 * Levels go by rank among the heading styles the document uses, largest first.
 */

/** A line this much larger than the body is a heading. */
export const HEADING_RATIO = 1.08;
/** A bold line standing alone at this share of the body size or more is a heading. */
export const BOLD_HEADING_RATIO = 0.97;
/** A heading is a title, not a paragraph: longer lines are text set large. */
export const MAX_HEADING_CHARS = 150;
/** Levels past this are written as this one. */
const DEEPEST = 3;

const round = (size: number) => Math.round(size * 4) / 4;
const styleKey = (size: number, bold: boolean) => `${round(size)}|${bold ? 'b' : ''}`;

export interface HeadingStyles {
  body: number;
  /** The level of a heading line, or 0 for none; `alone` says it stands as its own block. */
  level(line: Line, alone: boolean): number;
}

export function headingStyles(lines: readonly Line[]): HeadingStyles {
  const chars = new Map<number, number>();
  for (const line of lines) {
    if (line.mono) continue;
    const size = round(line.size);
    chars.set(size, (chars.get(size) ?? 0) + line.text.length);
  }
  let body = 0;
  let most = -1;
  for (const [size, n] of chars) {
    if (n > most) [body, most] = [size, n];
  }
  const isLarge = (line: Line) => line.size >= body * HEADING_RATIO;
  const styles = new Map<string, { size: number; bold: boolean }>();
  for (const line of lines) {
    if (line.mono || line.text.length > MAX_HEADING_CHARS) continue;
    if (isLarge(line) || (line.bold && line.size >= body * BOLD_HEADING_RATIO))
      styles.set(styleKey(line.size, line.bold), { size: round(line.size), bold: line.bold });
  }
  const ranked = [...styles.entries()]
    .sort(([, a], [, b]) => b.size - a.size || Number(b.bold) - Number(a.bold))
    .map(([key]) => key);
  return {
    body,
    level(line, alone) {
      if (body === 0 || line.mono || line.text.length > MAX_HEADING_CHARS) return 0;
      if (!isLarge(line) && !(alone && line.bold && line.size >= body * BOLD_HEADING_RATIO)) return 0;
      const rank = ranked.indexOf(styleKey(line.size, line.bold));
      return Math.min(DEEPEST, rank + 1);
    },
  };
}
