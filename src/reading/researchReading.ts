import { splitIntoChunks } from '../structured/chunking';
import type { PageMetadata } from '../types';
import { forwardSearch, isSpace } from '../text/scan';
import type { MarkdownReading } from './markdownReading';

/** A link of a page's main content: where research may follow. */
export interface PageLink {
  url: string;
  text: string;
}

/**
 * A page as research reads it: the start of its main content (within the analysis budget), and
 * the links of the main content, so promising ones can be followed. Navigation and footers are
 * left out on purpose: their links lead to the rest of the site, not further into the subject.
 */
export interface ResearchReading {
  content: string;
  metadata: PageMetadata;
  links: PageLink[];
}

const MAX_LINKS = 40;
const MAX_LINK_TEXT = 120;
/**
 * Markdown links (not images) to absolute http(s) URLs, as the converter writes them, in order:
 * what `/(?<!!)\[([^\]\n]*)\]\((https?:\/\/[^\s)]+)(?:\s+"[^"\n]*")?\)/g` matches. Scanned by hand:
 * that pattern reads from every `[` to the line's end, so a line of `[`s cost its square.
 */
function* markdownLinks(markdown: string): Generator<{ text: string; url: string }> {
  const textEnd = forwardSearch(markdown, (char) => char === ']' || char === '\n');
  const urlEnd = forwardSearch(markdown, (char) => char === ')' || isSpace(char));
  const spaceEnd = forwardSearch(markdown, (char) => !isSpace(char));
  const titleEnd = forwardSearch(markdown, (char) => char === '"' || char === '\n');
  function linkAt(open: number): { text: string; url: string; end: number } | undefined {
    if (markdown[open - 1] === '!') return undefined;
    const close = textEnd(open + 1);
    if (markdown[close] !== ']' || markdown[close + 1] !== '(') return undefined;
    const start = close + 2;
    const scheme = markdown.startsWith('https://', start) ? 8 : markdown.startsWith('http://', start) ? 7 : 0;
    if (scheme === 0) return undefined;
    const end = urlEnd(start + scheme);
    if (end === start + scheme) return undefined;
    const found = { text: markdown.slice(open + 1, close), url: markdown.slice(start, end) };
    if (markdown[end] === ')') return { ...found, end: end + 1 };
    const quote = spaceEnd(end);
    if (quote === end || markdown[quote] !== '"') return undefined;
    const closing = titleEnd(quote + 1);
    return markdown[closing] === '"' && markdown[closing + 1] === ')' ? { ...found, end: closing + 2 } : undefined;
  }

  let open = markdown.indexOf('[');
  while (open >= 0) {
    const link = linkAt(open);
    open = markdown.indexOf('[', link ? link.end : open + 1);
    if (link) yield link;
  }
}

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

export function linksOf(markdown: string, pageUrl?: string): PageLink[] {
  const self = pageUrl ? withoutFragment(pageUrl) : undefined;
  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const link of markdownLinks(markdown)) {
    const url = withoutFragment(link.url);
    if (url === self || seen.has(url)) continue;
    seen.add(url);
    links.push({ url, text: link.text.replace(/[*_`]/g, '').trim().slice(0, MAX_LINK_TEXT) });
    if (links.length >= MAX_LINKS) break;
  }
  return links;
}

/** The research reading of a page's main-content Markdown: cut at a paragraph within `tokens`. */
export function researchReadingOf(page: MarkdownReading, tokens: number, pageUrl: string): ResearchReading {
  return {
    content: splitIntoChunks(page.content, tokens)[0] ?? '',
    metadata: page.metadata,
    links: linksOf(page.content, pageUrl),
  };
}
