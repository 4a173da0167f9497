import { outlineMatcher, type OutlineEntry } from './outline';
import type { Line } from './types';

/**
 * Headings from the document's own type: the body size is the size most of its prose characters
 * are set in (code does not count, so a document that is mostly code still finds its prose), a
 * line clearly larger is a heading, and a bold line at body size standing alone is one too.
 * Levels go by rank among the heading styles the document uses, largest first. Where the document
 * has an outline, its titles are the headings and its depths their levels; type only adds the
 * headings above the outline's (the document's title) and below its deepest.
 */

/** A line this much larger than the body is a heading. */
export const HEADING_RATIO = 1.08;
/** A bold line standing alone at this share of the body size or more is a heading. */
export const BOLD_HEADING_RATIO = 0.97;
/** A heading is a title, not a paragraph: longer lines are text set large. */
export const MAX_HEADING_CHARS = 150;
/** Levels past this are written as this one. */
const DEEPEST = 3;
/** Markdown's deepest heading. */
const MARKDOWN_DEEPEST = 6;

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

/**
 * Each line's heading level (0: no heading). `alone[i]` says line i stands as its own block.
 * Outline levels start where type puts the outline's top entries, so a title set above them keeps
 * its level one.
 */
export function headingLevels(
  lines: readonly Line[],
  alone: readonly boolean[],
  outline: readonly OutlineEntry[],
): number[] {
  const styles = headingStyles(lines);
  const byType = lines.map((line, i) => styles.level(line, alone[i]!));
  if (outline.length === 0) return byType;
  const matcher = outlineMatcher(outline);
  const depths = lines.map((line, i) =>
    line.mono || line.text.length > MAX_HEADING_CHARS
      ? undefined
      : matcher.depthOf(line.text, alone[i]! || byType[i]! > 0),
  );
  const matched = depths.flatMap((depth, i) => (depth === undefined ? [] : [{ depth, type: byType[i]! }]));
  if (matched.length === 0) return byType;
  // Type can set an entry and its children alike; the outline's top entries alone say where its levels start.
  const top = matched.reduce((least, { depth }) => Math.min(least, depth), Infinity);
  const topTypes = matched.filter(({ depth, type }) => depth === top && type > 0).map(({ type }) => type);
  const base = Math.max(1, topTypes.length > 0 ? topTypes.reduce((a, b) => Math.min(a, b)) - top : 1);
  const deepest = matched.reduce((most, { type }) => Math.max(most, type), 0);
  return lines.map((_, i) => {
    const depth = depths[i];
    if (depth !== undefined) return Math.min(MARKDOWN_DEEPEST, base + depth);
    const level = byType[i]!;
    return level > 0 && (level < base || level > deepest) ? level : 0;
  });
}
