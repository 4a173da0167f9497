import type { Block } from './types';

/** Stage 6: blocks as Markdown. Items of one list sit on consecutive lines, so Markdown keeps them one tight list. */

function table(rows: string[][]): string {
  const width = Math.max(...rows.map((row) => row.length));
  const line = (row: string[]) => `| ${Array.from({ length: width }, (_, i) => row[i] ?? '').join(' | ')} |`;
  const [head = [], ...body] = rows;
  return [line(head), `|${' --- |'.repeat(width)}`, ...body.map(line)].join('\n');
}

function render(block: Block): string {
  switch (block.kind) {
    case 'heading':
      return `${'#'.repeat(block.level)} ${block.text}`;
    case 'paragraph':
      return block.text;
    case 'item':
      return `${'   '.repeat(block.depth)}${block.marker} ${block.text}`;
    case 'code':
      return ['```', ...block.lines, '```'].join('\n');
    case 'quote':
      return block.paragraphs.map((paragraph) => `> ${paragraph}`).join('\n>\n');
    case 'table':
      return table(block.rows);
  }
}

export function toMarkdown(blocks: readonly Block[]): string {
  return blocks
    .map(
      (block, i) =>
        (i === 0 ? '' : block.kind === 'item' && blocks[i - 1]?.kind === 'item' ? '\n' : '\n\n') + render(block),
    )
    .join('');
}
