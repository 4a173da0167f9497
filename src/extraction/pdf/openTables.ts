import { cellText } from './cells';
import type { Fragment, Rule, Table } from './types';

/**
 * Tables ruled by horizontal lines only (booktabs: a rule above, one under the header, one
 * below). Rules of one span on a page, taken top down in threes, bound a table; its columns are
 * the gutters every row leaves free, its rows the baselines, and a baseline with an empty first
 * cell is a wrapped line of the row above. The rows above the middle rule are the header. Half of
 * a table's lines fill two cells or more; prose or code between two rules does not.
 */

/** A rule this wide (points) or wider can bound a table; shorter ones underline words. */
const MIN_RULE_WIDTH = 40;
/** Rule ends closer than this (points) are one span. */
const SAME_SPAN = 3;
/** Text runs closer than this (font sizes) side by side are one column. */
const GUTTER = 0.5;
/** Baselines closer than this (font sizes) are one row. */
const SAME_ROW = 0.3;
const MIN_COLUMNS = 2;
/** More gutters than this is scattered text, not a table (and keeps the row pass linear). */
const MAX_COLUMNS = 12;
const MIN_ROWS = 2;

function spansOf(rules: Rule[]): Rule[][] {
  const wide = rules.filter((r) => r.x1 - r.x0 >= MIN_RULE_WIDTH).sort((a, b) => a.x0 - b.x0 || a.x1 - b.x1);
  const spans: Rule[][] = [];
  for (const rule of wide) {
    const span = spans.find(
      (s) => Math.abs(s[0]!.x0 - rule.x0) <= SAME_SPAN && Math.abs(s[0]!.x1 - rule.x1) <= SAME_SPAN,
    );
    if (span) span.push(rule);
    else spans.push([rule]);
  }
  return spans;
}

interface Region {
  top: number;
  middle: number | undefined;
  bottom: number;
}

function regionsOf(span: Rule[]): Region[] {
  const ys = span.map((r) => (r.y0 + r.y1) / 2).sort((a, b) => b - a);
  const regions: Region[] = [];
  for (let i = 0; i + 1 < ys.length; i += 3) {
    const group = ys.slice(i, i + 3);
    regions.push({
      top: group[0]!,
      middle: group.length === 3 ? group[1] : undefined,
      bottom: group[group.length - 1]!,
    });
  }
  return regions;
}

/** Column extents: the x-intervals of the runs, merged where they overlap or nearly touch. */
function columnsOf(runs: Fragment[]): [number, number][] {
  const sorted = runs.map((f) => [f.x, f.x + f.width, f.size] as const).sort((a, b) => a[0] - b[0]);
  const columns: [number, number][] = [];
  for (const [x0, x1, size] of sorted) {
    const last = columns[columns.length - 1];
    if (last && x0 <= last[1] + size * GUTTER) last[1] = Math.max(last[1], x1);
    else columns.push([x0, x1]);
  }
  return columns;
}

function rowsOf(runs: Fragment[], columns: [number, number][]): Fragment[][][] {
  const byLine = [...runs].sort((a, b) => b.y - a.y || a.x - b.x);
  const rows: Fragment[][][] = [];
  let y = Infinity;
  for (const f of byLine) {
    if (Math.abs(y - f.y) > f.size * SAME_ROW) rows.push(columns.map(() => []));
    y = f.y;
    const col = columns.findIndex(([x0, x1]) => f.x >= x0 - 1 && f.x <= x1);
    rows[rows.length - 1]![Math.max(0, col)]!.push(f);
  }
  return rows;
}

/** Wrapped lines (an empty first cell) join the row above; the header's lines join into one row. */
function joinRows(lines: Fragment[][][], headerLines: number): Fragment[][][] {
  const rows: Fragment[][][] = [];
  lines.forEach((line, i) => {
    const last = rows[rows.length - 1];
    const joins = i < headerLines ? i > 0 : i > headerLines && line[0]!.length === 0;
    if (last && joins) line.forEach((cell, c) => last[c]!.push(...cell));
    else rows.push(line.map((cell) => [...cell]));
  });
  return rows;
}

export function openTables(
  fragments: readonly Fragment[],
  horizontals: Rule[],
  page: number,
  used: Set<number>,
): { table: Table; at: number }[] {
  const tables: { table: Table; at: number }[] = [];
  for (const span of spansOf(horizontals)) {
    for (const region of regionsOf(span)) {
      const x0 = span[0]!.x0 - SAME_SPAN;
      const x1 = span[0]!.x1 + SAME_SPAN;
      const inside: number[] = [];
      fragments.forEach((f, i) => {
        if (used.has(i) || !f.str.trim()) return;
        if (f.y < region.top && f.y > region.bottom && f.x + f.width / 2 >= x0 && f.x + f.width / 2 <= x1)
          inside.push(i);
      });
      const runs = inside.map((i) => fragments[i]!);
      const columns = columnsOf(runs);
      if (columns.length < MIN_COLUMNS || columns.length > MAX_COLUMNS) continue;
      const lines = rowsOf(runs, columns);
      if (
        lines.filter((line) => line.filter((cell) => cell.length > 0).length >= MIN_COLUMNS).length * 2 <
        lines.length
      )
        continue;
      const headerLines = region.middle === undefined ? 1 : lines.filter((l) => l.flat()[0]!.y > region.middle!).length;
      const rows = joinRows(lines, Math.max(1, headerLines)).map((row) =>
        row.map((runs, c) => cellText(runs, columns[c]![1])),
      );
      if (rows.length < MIN_ROWS) continue;
      for (const i of inside) used.add(i);
      tables.push({ table: { kind: 'table', rows, page }, at: inside[0]! });
    }
  }
  return tables;
}
