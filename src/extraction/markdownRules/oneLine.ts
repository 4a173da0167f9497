/** Converted Markdown on a single line: what a table cell, a caption or a term must fit on. */
export function oneLine(content: string): string {
  // A blank run with a line break becomes a space; `\s*\n+\s*` rescanned a run without one from each start.
  return content.trim().replace(/\s+/g, (run: string) => (run.includes('\n') ? ' ' : run));
}
