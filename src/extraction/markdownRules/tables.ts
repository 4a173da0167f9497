import type TurndownService from 'turndown';
import { oneLine } from './oneLine';

/** A column slot a cell above fills by spanning rows: its text is repeated in the first column it spans. */
interface Carried {
  cell: Element;
  first: boolean;
}

/** What the rules need to know of a table, worked out once per table. */
interface TableShape {
  firstRow: Element | undefined;
  /** Columns of the widest row, spans counted. */
  width: number;
  /** One column, or holding other tables: read as plain blocks. */
  layout: boolean;
  /** Columns of each row, spans from rows above counted. */
  rowWidths: Map<Element, number>;
  /** Slots filled from rows above just before a cell, or at the end of a row (keyed by the row). */
  carried: Map<Element, Carried[]>;
  /** Converted text of the cells that span rows, repeated in the rows below. */
  texts: Map<Element, string>;
}

/**
 * Turndown asks about every cell and row; working the shape out each time walked the whole table
 * per cell, which made a 5,000-row table take minutes. The DOM does not change while it is
 * converted, so each table's shape is kept for the rest of the conversion.
 */
const shapes = new WeakMap<Element, TableShape>();

function spanAttribute(cell: Element, name: string): number {
  const value = Number(cell.getAttribute(name) ?? '1');
  return Number.isInteger(value) && value > 1 ? Math.min(value, 100) : 1;
}

/** Columns a cell spans; a cell spanning several is followed by empty cells so columns line up. */
const span = (cell: Element) => spanAttribute(cell, 'colspan');

/**
 * Lays the rows out on a grid: a cell spanning rows (`rowspan`) fills its columns in the rows
 * below, where GFM has no spans; repeating its text there keeps every row whole and its cells
 * under their headers.
 */
function layOut(rows: Element[]): Pick<TableShape, 'rowWidths' | 'carried'> {
  const rowWidths = new Map<Element, number>();
  const carried = new Map<Element, Carried[]>();
  // By column: the cell above still spanning into this row, and for how many rows more.
  const above: { cell: Element; first: boolean; rows: number }[] = [];
  const take = (column: number, into: Carried[]) => {
    const slot = above[column]!;
    into.push({ cell: slot.cell, first: slot.first });
    if (--slot.rows === 0) delete above[column];
  };
  for (const tr of rows) {
    let column = 0;
    for (let cell = tr.firstElementChild; cell; cell = cell.nextElementSibling) {
      if (cell.tagName !== 'TD' && cell.tagName !== 'TH') continue;
      const before: Carried[] = [];
      while (above[column]) take(column++, before);
      if (before.length > 0) carried.set(cell, before);
      const down = spanAttribute(cell, 'rowspan');
      for (let i = 0; i < span(cell); i++, column++)
        if (down > 1) above[column] = { cell, first: i === 0, rows: down - 1 };
    }
    const after: Carried[] = [];
    while (above[column]) take(column++, after);
    if (after.length > 0) carried.set(tr, after);
    rowWidths.set(tr, column);
  }
  return { rowWidths, carried };
}

function shapeOf(table: Element): TableShape {
  let shape = shapes.get(table);
  if (shape) return shape;
  // The rows of the table itself, not of tables nested in it.
  const rows = Array.from(table.querySelectorAll('tr')).filter((tr) => tr.closest('table') === table);
  const { rowWidths, carried } = layOut(rows);
  let width = 0;
  for (const columns of rowWidths.values()) width = Math.max(width, columns);
  shape = {
    firstRow: rows[0],
    width,
    layout: width < 2 || table.querySelector('table') !== null,
    rowWidths,
    carried,
    texts: new Map(),
  };
  shapes.set(table, shape);
  return shape;
}

/** The data table `node` belongs to, or undefined for a layout table or none. */
function dataTable(node: Node): Element | undefined {
  const table = (node as Element).closest?.('table');
  return table && !shapeOf(table).layout ? table : undefined;
}

function cellText(content: string): string {
  return oneLine(content).replace(/\|/g, '\\|');
}

/** The slots cells above fill before `key` (a cell, or a row for its end), as Markdown cells. */
function carriedSlots(shape: TableShape, key: Element): string {
  return (shape.carried.get(key) ?? [])
    .map(({ cell, first }) => ` ${first ? (shape.texts.get(cell) ?? '') : ''} |`)
    .join('');
}

/**
 * GFM tables: the first row is the header (GFM has no headerless tables), cells on one line with
 * pipes escaped. Cells and rows outside a data table become plain blocks.
 */
export function addTableRules(td: TurndownService): void {
  // Turndown tries the most recently added rule first, so the general case goes in first.
  td.addRule('layoutCell', {
    filter: ['td', 'th'],
    replacement: (content) => `\n\n${content}\n\n`,
  });
  td.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TD' || node.nodeName === 'TH') && dataTable(node) !== undefined,
    replacement: (content, node) => {
      const cell = node as Element;
      const shape = shapeOf(dataTable(cell)!);
      const text = cellText(content);
      if (spanAttribute(cell, 'rowspan') > 1) shape.texts.set(cell, text);
      const before = carriedSlots(shape, cell);
      return `${cell.previousElementSibling ? '' : '|'}${before} ${text} |${'  |'.repeat(span(cell) - 1)}`;
    },
  });
  td.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && dataTable(node) !== undefined,
    replacement: (content, node) => {
      const shape = shapeOf(dataTable(node)!);
      const { firstRow, width } = shape;
      const row = `\n${content || '|'}${carriedSlots(shape, node as Element)}${'  |'.repeat(Math.max(0, width - (shape.rowWidths.get(node as Element) ?? 0)))}`;
      return firstRow === node ? `${row}\n|${' --- |'.repeat(width)}` : row;
    },
  });
  td.addRule('tableSection', {
    filter: (node) => ['THEAD', 'TBODY', 'TFOOT'].includes(node.nodeName) && dataTable(node) !== undefined,
    replacement: (content) => content,
  });
  // GFM tables have no caption; above the table, in italics, it reads as one and is not taken for a row.
  td.addRule('tableCaption', {
    filter: (node) => node.nodeName === 'CAPTION' && dataTable(node) !== undefined,
    replacement: () => '',
  });
  td.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && !shapeOf(node as Element).layout,
    replacement: (content, node) => {
      const caption = (node as Element).querySelector(':scope > caption')?.textContent?.replace(/\s+/g, ' ').trim();
      return `\n\n${caption ? `*${caption}*\n\n` : ''}${content.replace(/^\n+/, '')}\n\n`;
    },
  });
}
