/**
 * Cuts Markdown to at most `maxBytes` of UTF-8 at the last paragraph break that fits, so a
 * huge page yields a bounded answer that still ends on a whole block.
 */
export function boundMarkdown(markdown: string, maxBytes: number): string {
  if (Buffer.byteLength(markdown) <= maxBytes) return markdown;
  const cut = Buffer.from(markdown)
    .subarray(0, maxBytes)
    .toString('utf8')
    .replace(/\uFFFD$/, '');
  const paragraph = cut.lastIndexOf('\n\n');
  return (paragraph > maxBytes / 2 ? cut.slice(0, paragraph) : cut).trimEnd();
}
