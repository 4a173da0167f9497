import MarkdownIt from 'markdown-it';

/**
 * markdown-it with raw HTML off: a page's or a model's Markdown can bring in no element that
 * Markdown itself does not make, and links with a `javascript:`, `vbscript:`, `file:` or `data:`
 * address stay text. Its parser grows linearly with the text and caps nesting (100 levels), where
 * marked took 164 s for 200 kB of `_a` and overflowed the stack on 200,000 `>`.
 */
const markdown = new MarkdownIt('default', { html: false, linkify: false, typographer: false });

/** Markdown as HTML. */
export function markdownToHtml(text: string): string {
  return markdown.render(text);
}
