import type { Fragment, Line } from './types';

/**
 * Stage 3: text runs become lines. Runs on one baseline join; a space goes between two runs only
 * where the page leaves a gap, so a ligature that pdf.js gives as its own run ("o" "ff" "icial")
 * joins back into its word.
 */

/** Two runs this close in baseline (in font sizes, at least SAME_LINE_MIN points) share a line. */
const SAME_LINE = 0.3;
const SAME_LINE_MIN = 2;
/** A horizontal gap this wide (in font sizes) between two runs is a space. */
const WORD_GAP = 0.15;
/** A line is monospaced, or bold, when this share of its characters is. */
const STYLE_SHARE = 0.9;

interface Building {
  parts: string[];
  fragments: Fragment[];
  end: number;
}

function finish(building: Building, page: number): Line | undefined {
  const text = building.parts.join('').replace(/\s+/g, ' ').trim();
  if (!text) return undefined;
  let chars = 0;
  let mono = 0;
  let bold = 0;
  let size = 0;
  let monoWidth = 0;
  let monoChars = 0;
  let x0 = Infinity;
  let x1 = -Infinity;
  for (const f of building.fragments) {
    const n = f.str.replace(/\s/g, '').length;
    if (n === 0) continue;
    chars += n;
    if (f.mono) {
      mono += n;
      monoWidth += f.width;
      monoChars += f.str.length;
    }
    if (f.bold) bold += n;
    size = Math.max(size, f.size);
    x0 = Math.min(x0, f.x);
    x1 = Math.max(x1, f.x + f.width);
  }
  const first = building.fragments[0]!;
  return {
    text,
    x0,
    x1,
    y: first.y,
    size,
    bold: bold >= chars * STYLE_SHARE,
    mono: mono >= chars * STYLE_SHARE,
    charWidth: monoChars > 0 ? monoWidth / monoChars : size * 0.6,
    page,
  };
}

export function linesOf(fragments: readonly Fragment[], page: number): Line[] {
  const lines: Line[] = [];
  let current: Building | undefined;
  let last: Fragment | undefined;
  const close = () => {
    const line = current && finish(current, page);
    if (line) lines.push(line);
    current = undefined;
  };
  for (const f of fragments) {
    const sameLine =
      current &&
      last &&
      Math.abs(last.y - f.y) <= Math.max(SAME_LINE_MIN, f.size * SAME_LINE) &&
      f.x >= last.x - SAME_LINE_MIN;
    if (!sameLine) close();
    if (!current) current = { parts: [], fragments: [], end: f.x };
    else {
      const previous = current.parts[current.parts.length - 1] ?? '';
      const gap = f.x - current.end;
      if (f.str && !/\s$/.test(previous) && !/^\s/.test(f.str) && gap > f.size * WORD_GAP) current.parts.push(' ');
    }
    current.parts.push(f.str);
    current.fragments.push(f);
    if (f.str) current.end = Math.max(current.end, f.x + f.width);
    last = f;
    if (f.eol) close();
  }
  close();
  return lines;
}
