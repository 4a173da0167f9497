import type TurndownService from 'turndown';
import { oneLine } from './oneLine';

/** What the rules need to know of a table, worked out once per table. */
interface TableShape {
  firstRow: Element | undefined;
  /** Columns of the widest row, spans counted. */
  width: number;
  /** One column, or holding other tables: read as plain blocks. */
  layout: boolean;
}

/**
 * Turndown asks about every cell and row; working the shape out each time walked the whole table
 * per cell, which made a 5,000-row table take minutes. The DOM does not change while it is
 * converted, so each table's shape is kept for the rest of the conversion.
 */
const shapes = new WeakMap<Element, TableShape>();

/** Columns a cell spans; a cell spanning several is followed by empty cells so columns line up. */
function span(cell: Element): number {
  const value = Number(cell.getAttribute('colspan') ?? '1');
  return Number.isInteger(value) && value > 1 ? Math.min(value, 100) : 1;
}

/** Columns of a row, spans counted. */
function rowWidth(tr: Element): number {
  let width = 0;
  for (let cell = tr.firstElementChild; cell; cell = cell.nextElementSibling) {
    if (cell.tagName === 'TD' || cell.tagName === 'TH') width += span(cell);
  }
  return width;
}

function shapeOf(table: Element): TableShape {
  let shape = shapes.get(table);
  if (shape) return shape;
  // The rows of the table itself, not of tables nested in it.
  const rows = Array.from(table.querySelectorAll('tr')).filter((tr) => tr.closest('table') === table);
  let width = 0;
  for (const tr of rows) width = Math.max(width, rowWidth(tr));
  shape = { firstRow: rows[0], width, layout: width < 2 || table.querySelector('table') !== null };
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
    replacement: (content, node) => `${node.previousElementSibling ? ' ' : '| '}${cellText(content)} |${'  |'.repeat(span(node as Element) - 1)}`,
  });
  td.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && dataTable(node) !== undefined,
    replacement: (content, node) => {
      const { firstRow, width } = shapeOf(dataTable(node)!);
      const row = `\n${content}${'  |'.repeat(Math.max(0, width - rowWidth(node as Element)))}`;
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
