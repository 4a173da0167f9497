/** Converted Markdown on a single line: what a table cell, a caption or a term must fit on. */
export function oneLine(content: string): string {
  return content.trim().replace(/\s*\n+\s*/g, ' ');
}
