import { markdownToHtml } from './markdown';

/** Shorthand for a new element with its class and text. */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: { className?: string; text?: string } = {},
  ...children: Node[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  if (options.className) element.className = options.className;
  if (options.text !== undefined) element.textContent = options.text;
  element.append(...children);
  return element;
}

/** An address the page may link to: http or https only, so no `javascript:` or `data:` link. */
export function safeHref(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** A link out of the playground: a new tab that gets neither this page's window nor its address. */
export function externalLink(href: string, text: string): HTMLAnchorElement {
  const link = el('a', { text });
  link.href = href;
  link.target = '_blank';
  link.rel = 'noopener noreferrer';
  return link;
}

/**
 * Markdown from a page or a model, as HTML (src/playground/markdown.ts makes only Markdown's own
 * elements): links go out as `externalLink` does (or lose their address when it is not http), and
 * images become links to them, since the page loads none.
 */
export function renderMarkdown(markdown: string): HTMLElement {
  // A template's content is inert: its images are not fetched while they are turned into links.
  const template = document.createElement('template');
  template.innerHTML = markdownToHtml(markdown);
  const article = el('div', { className: 'markdown' });
  for (const image of Array.from(template.content.querySelectorAll('img'))) {
    const href = safeHref(image.getAttribute('src'));
    const label = `[image${image.alt ? `: ${image.alt}` : ''}]`;
    image.replaceWith(href ? externalLink(href, label) : document.createTextNode(label));
  }
  for (const link of Array.from(template.content.querySelectorAll('a'))) {
    const href = safeHref(link.getAttribute('href'));
    if (href) {
      link.target = '_blank';
      link.rel = 'noopener noreferrer';
    } else {
      link.removeAttribute('href');
    }
  }
  article.append(template.content);
  return article;
}

/** A research report's citation markers, `[3]` or `[2, 5]`, as src/research/citations.ts writes them. */
const MARKER = /\[(\d{1,4}(?:, ?\d{1,4})*)\]/g;

/** Turns each citation marker of the rendered report into links to the cited pages' addresses. */
export function linkCitations(container: HTMLElement, sources: Map<string, string>): void {
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) =>
      node.parentElement?.closest('a, code, pre') ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT,
  });
  const texts: Text[] = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) texts.push(node as Text);
  for (const text of texts) {
    const value = text.data;
    const parts: Node[] = [];
    let last = 0;
    for (const match of value.matchAll(MARKER)) {
      const numbers = match[1]!.split(',').map((n) => n.trim());
      if (!numbers.some((n) => sources.has(n))) continue;
      parts.push(document.createTextNode(value.slice(last, match.index)), document.createTextNode('['));
      numbers.forEach((number, index) => {
        if (index > 0) parts.push(document.createTextNode(', '));
        const href = sources.get(number);
        const link = href ? externalLink(href, number) : el('span', { text: number });
        if (href) link.className = 'citation';
        parts.push(link);
      });
      parts.push(document.createTextNode(']'));
      last = match.index + match[0].length;
    }
    if (parts.length === 0) continue;
    parts.push(document.createTextNode(value.slice(last)));
    text.replaceWith(...parts);
  }
}

/** A JSON value pretty-printed, as text. */
export function jsonBlock(value: unknown, label: string): HTMLElement {
  const pre = el('pre', { className: 'json' }, el('code', { text: JSON.stringify(value, null, 2) }));
  pre.tabIndex = 0;
  pre.setAttribute('aria-label', label);
  return pre;
}

/** The YAML frontmatter an extraction puts before the Markdown without `metadata` (spec 2.4), and the rest. */
export function splitFrontmatter(content: string): { frontmatter?: string; body: string } {
  if (!content.startsWith('---\n')) return { body: content };
  const end = content.indexOf('\n---\n', 3);
  if (end < 0) return { body: content };
  return { frontmatter: content.slice(4, end), body: content.slice(end + 5) };
}

/**
 * Rendered Markdown beside its source: the two columns of a result. `decorate` changes the rendered
 * side (citation links) before it is shown.
 */
export function markdownPair(markdown: string, decorate?: (rendered: HTMLElement) => void): HTMLElement {
  const { frontmatter, body } = splitFrontmatter(markdown);
  const rendered = renderMarkdown(body);
  decorate?.(rendered);
  const source = el('pre', { className: 'source' }, el('code', { text: markdown }));
  source.tabIndex = 0;
  source.setAttribute('aria-label', 'Markdown source');
  const renderedColumn = el('section', { className: 'column' }, el('h3', { text: 'Rendered' }));
  if (frontmatter) renderedColumn.append(el('pre', { className: 'frontmatter', text: frontmatter }));
  renderedColumn.append(rendered);
  return el(
    'div',
    { className: 'pair' },
    renderedColumn,
    el('section', { className: 'column' }, el('h3', { text: 'Markdown source' }), source),
  );
}
