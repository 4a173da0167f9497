import { strikethrough, taskListItems } from '@joplin/turndown-plugin-gfm';
import TurndownService from 'turndown';

/**
 * HTML to Markdown: GFM tables (our rules), strikethrough and task lists, fenced code with the language
 * taken from the code element's class, ATX headings. One converter per process, since
 * building the rule set costs more than most conversions.
 */

let service: TurndownService | undefined;

function converter(): TurndownService {
  if (service) return service;
  service = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    bulletListMarker: '-',
    emDelimiter: '*',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  service.use([strikethrough, taskListItems]);
  addTableRules(service);
  // Turndown pads list markers to four columns; CommonMark needs only the marker's width,
  // which keeps nested lists readable and their indentation consistent.
  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node, options) {
      const parent = node.parentNode as Element | null;
      let prefix = `${options.bulletListMarker} `;
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? '1');
        prefix = `${(Number.isFinite(start) ? start : 1) + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const body = content
        .replace(/^\n+/, '')
        .replace(/\n+$/, '\n')
        .replace(/\n/gm, `\n${' '.repeat(prefix.length)}`);
      return prefix + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
    },
  });
  service.remove(['script', 'style', 'noscript', 'template', 'iframe', 'button', 'select', 'input', 'textarea']);
  return service;
}

/** The rows of a table itself, not of tables nested in it. */
function ownRows(table: Element): Element[] {
  return Array.from(table.querySelectorAll('tr')).filter((tr) => tr.closest('table') === table);
}

/** Tables used for layout (one column, or holding other tables) are read as plain blocks. */
function isLayoutTable(table: Element): boolean {
  const rows = ownRows(table);
  const width = Math.max(0, ...rows.map((tr) => tr.querySelectorAll(':scope > td, :scope > th').length));
  return width < 2 || table.querySelector('table') !== null;
}

function cellText(content: string): string {
  return content.trim().replace(/\s*\n+\s*/g, ' ').replace(/\|/g, '\\|');
}

/**
 * GFM tables: the first row is the header (GFM has no headerless tables), cells on one line with
 * pipes escaped. Cells and rows outside a data table become plain blocks.
 */
function addTableRules(td: TurndownService): void {
  const table = (node: Node): Element | null => (node as Element).closest?.('table') ?? null;
  // Turndown tries the most recently added rule first, so the general case goes in first.
  td.addRule('layoutCell', {
    filter: ['td', 'th'],
    replacement: (content) => `\n\n${content}\n\n`,
  });
  td.addRule('tableCell', {
    filter: (node) => (node.nodeName === 'TD' || node.nodeName === 'TH') && !!table(node) && !isLayoutTable(table(node)!),
    replacement: (content, node) => `${node.previousElementSibling ? ' ' : '| '}${cellText(content)} |`,
  });
  td.addRule('tableRow', {
    filter: (node) => node.nodeName === 'TR' && !!table(node) && !isLayoutTable(table(node)!),
    replacement: (content, node) => {
      const rows = ownRows(table(node)!);
      const cells = (tr: Element) => tr.querySelectorAll(':scope > td, :scope > th').length;
      const width = Math.max(...rows.map(cells));
      const row = `\n${content}${'  |'.repeat(Math.max(0, width - cells(node as Element)))}`;
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

export function toMarkdown(root: Node): string {
  return converter()
    .turndown(root as unknown as TurndownService.Node)
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
