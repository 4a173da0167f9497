import { splitIntoChunks } from '../structured/chunking';
import type { PageMetadata } from '../types';
import type { MarkdownReading } from './readPage';

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
/** Markdown links (not images) to absolute http(s) URLs, as the converter writes them. */
const LINK = /(?<!!)\[([^\]\n]*)\]\((https?:\/\/[^\s)]+)(?:\s+"[^"\n]*")?\)/g;

function withoutFragment(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

export function linksOf(markdown: string, pageUrl?: string): PageLink[] {
  const self = pageUrl ? withoutFragment(pageUrl) : undefined;
  const seen = new Set<string>();
  const links: PageLink[] = [];
  for (const match of markdown.matchAll(LINK)) {
    const url = withoutFragment(match[2]!);
    if (url === self || seen.has(url)) continue;
    seen.add(url);
    links.push({ url, text: match[1]!.replace(/[*_`]/g, '').trim().slice(0, MAX_LINK_TEXT) });
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
