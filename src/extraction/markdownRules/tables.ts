import type TurndownService from 'turndown';

/** The rows of a table itself, not of tables nested in it. */
function ownRows(table: Element): Element[] {
  return Array.from(table.querySelectorAll('tr')).filter((tr) => tr.closest('table') === table);
}

/** Tables used for layout (one column, or holding other tables) are read as plain blocks. */
function isLayoutTable(table: Element): boolean {
  const rows = ownRows(table);
  const width = Math.max(0, ...rows.map(rowWidth));
  return width < 2 || table.querySelector('table') !== null;
}

/** Columns a cell spans; a cell spanning several is followed by empty cells so columns line up. */
function span(cell: Element): number {
  const value = Number(cell.getAttribute('colspan') ?? '1');
  return Number.isInteger(value) && value > 1 ? Math.min(value, 100) : 1;
}

/** Columns of a row, spans counted. */
function rowWidth(tr: Element): number {
  let width = 0;
  for (const cell of Array.from(tr.querySelectorAll(':scope > td, :scope > th'))) width += span(cell);
  return width;
}

function cellText(content: string): string {
  return content.trim().replace(/\s*\n+\s*/g, ' ').replace(/\|/g, '\\|');
}

/**
 * GFM tables: the first row is the header (GFM has no headerless tables), cells on one line with
 * pipes escaped. Cells and rows outside a data table become plain blocks.
 */
export function addTableRules(td: TurndownService): void {
  const table = (node: Node): Element | null => (node as Element).closest?.('table') ?? null;
  // Turndown tries the most recently added rule first, so the general case goes in first.
  td.addRule('layoutCell', {
    filter: ['td', 'th'],
    replacement: (content) => `\n\n${content}\n\n`,
  });
  td.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TD' || node.nodeName === 'TH') && !!table(node) && !isLayoutTable(table(node)!),
    replacement: (content, node) => `${node.previousElementSibling ? ' ' : '| '}${cellText(content)} |${'  |'.repeat(span(node as Element) - 1)}`,
  });
  td.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && !!table(node) && !isLayoutTable(table(node)!),
    replacement: (content, node) => {
      const rows = ownRows(table(node)!);
      const width = Math.max(...rows.map(rowWidth));
      const row = `\n${content}${'  |'.repeat(Math.max(0, width - rowWidth(node as Element)))}`;
      return rows[0] === node ? `${row}\n|${' --- |'.repeat(width)}` : row;
    },
  });
  td.addRule('tableSection', {
    filter: (node) => ['THEAD', 'TBODY', 'TFOOT'].includes(node.nodeName) && !!table(node) && !isLayoutTable(table(node)!),
    replacement: (content) => content,
  });
  td.addRule('table', {
    filter: (node) => node.nodeName === 'TABLE' && !isLayoutTable(node as Element),
    replacement: (content) => `\n\n${content.replace(/^\n+/, '')}\n\n`,
  });
}
