import { cellText } from './cells';
import { openTables } from './openTables';
import { RULE_THICKNESS } from './rules';
import type { Fragment, Rule, Table } from './types';

/**
 * Stage 2: tables. Bordered ones here, those drawn with horizontal rules only in openTables.ts.
 * A page's ruling lines fall into groups that touch one another; a group with at least two
 * columns between its vertical lines is a table grid, and the text runs inside it are its cells.
 * Cell text across wrapped lines joins with a space, or with none where the wrap split a word.
 */

/** Ruling lines closer than this (points) touch, and positions closer than this are one. */
const TOUCH = 2;
/** A table has at least this many columns (a lone box around code is not a table). */
export const MIN_COLUMNS = 2;

interface Grid {
  xs: number[];
  ys: number[];
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

export interface PageTables {
  tables: { table: Table; at: number }[];
  /** The runs that belong to a table, by index in the page's runs. */
  used: Set<number>;
}

/** Groups of intervals that overlap or touch, by a sort and one sweep. */
function overlapping<T>(items: T[], lo: (t: T) => number, hi: (t: T) => number): T[][] {
  const sorted = [...items].sort((a, b) => lo(a) - lo(b));
  const groups: T[][] = [];
  let end = -Infinity;
  for (const item of sorted) {
    const last = groups[groups.length - 1];
    if (!last || lo(item) > end + TOUCH) {
      groups.push([item]);
      end = hi(item);
    } else {
      last.push(item);
      end = Math.max(end, hi(item));
    }
  }
  return groups;
}

/** Distinct positions, those within TOUCH of each other merged. */
function distinct(values: number[]): number[] {
  const sorted = [...values].sort((a, b) => a - b);
  const out: number[] = [];
  for (const v of sorted) if (out.length === 0 || v - out[out.length - 1]! > TOUCH) out.push(v);
  return out;
}

/** The grids the rules draw, and the horizontal rules that are no part of a grid or a box. */
function gridsOf(rules: Rule[]): { grids: Grid[]; horizontals: Rule[] } {
  const grids: Grid[] = [];
  const loose: Rule[] = [];
  for (const band of overlapping(
    rules,
    (r) => r.y0,
    (r) => r.y1,
  )) {
    for (const group of overlapping(
      band,
      (r) => r.x0,
      (r) => r.x1,
    )) {
      const verticals = group.filter((r) => r.y1 - r.y0 > r.x1 - r.x0);
      const horizontals = group.filter((r) => r.y1 - r.y0 <= r.x1 - r.x0);
      const xs = distinct(verticals.map((r) => (r.x0 + r.x1) / 2));
      const ys = distinct(horizontals.map((r) => (r.y0 + r.y1) / 2)).reverse();
      if (xs.length < MIN_COLUMNS + 1 || ys.length < 2) {
        // Only rules with no vertical beside them: a box's top and bottom (code, a quote) bound no table.
        if (verticals.length === 0) loose.push(...horizontals);
        continue;
      }
      grids.push({ xs, ys, x0: xs[0]!, x1: xs[xs.length - 1]!, y0: ys[ys.length - 1]!, y1: ys[0]! });
    }
  }
  return { grids, horizontals: loose };
}

/** The index of the gap between boundaries (ascending, or descending) that holds v, by bisection. */
function slot(bounds: number[], v: number, descending: boolean): number {
  const key = descending ? -v : v;
  const at = (i: number) => (descending ? -bounds[i]! : bounds[i]!);
  if (key < at(0) || key > at(bounds.length - 1)) return -1;
  let lo = 0;
  let hi = bounds.length - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (at(mid) <= key) lo = mid;
    else hi = mid;
  }
  return lo;
}

export function tablesOf(fragments: readonly Fragment[], rules: Rule[], page: number): PageTables {
  const used = new Set<number>();
  const tables: { table: Table; at: number }[] = [];
  const { grids, horizontals } = gridsOf(rules.filter((r) => Math.min(r.x1 - r.x0, r.y1 - r.y0) <= RULE_THICKNESS));
  for (const grid of grids) {
    const cells: Fragment[][][] = Array.from({ length: grid.ys.length - 1 }, () =>
      Array.from({ length: grid.xs.length - 1 }, () => []),
    );
    let at = -1;
    fragments.forEach((f, i) => {
      const cx = f.x + f.width / 2;
      const cy = f.y + f.size * 0.3;
      if (cx < grid.x0 || cx > grid.x1 || cy < grid.y0 || cy > grid.y1) return;
      const row = slot(grid.ys, cy, true);
      const col = slot(grid.xs, cx, false);
      if (row < 0 || col < 0) return;
      cells[row]![col]!.push(f);
      used.add(i);
      if (at < 0) at = i;
    });
    if (at < 0) continue;
    const rights = grid.xs
      .slice(1)
      .map((_, c) =>
        cells.reduce(
          (most, row) => row[c]!.reduce((m, f) => (f.str.trim() ? Math.max(m, f.x + f.width) : m), most),
          -Infinity,
        ),
      );
    const rows = cells.map((row) => row.map((runs, c) => cellText(runs, rights[c]))).filter((row) => row.some(Boolean));
    if (rows.length > 0) tables.push({ table: { kind: 'table', rows, page }, at });
  }
  for (const open of openTables(fragments, horizontals, page, used)) tables.push(open);
  return { tables, used };
}
