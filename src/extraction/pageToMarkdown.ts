import { ServiceError } from '../errors';
import type { ContentScope, PageMetadata } from '../types';
import { decodeHtml } from './decode';
import { dropOrphanReferences, markFootnotes } from './footnotes';
import { mainContent } from './mainContent';
import { toMarkdown } from './markdown';
import { documentBase, extractMetadata } from './metadata';
import { parseDocument } from './parse';
import { isPdf, pdfToMarkdown } from './pdf/index';
import { removeInvisible, resolveUrls } from './prepare';

/** A page as it was downloaded or rendered. */
export interface PageBody {
  body: Buffer;
  contentType: string;
  finalUrl: string;
  /** The download stopped at the size cap. */
  truncated: boolean;
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml|application\/xml|text\/xml)\b/i;

function htmlToMarkdown(page: PageBody, scope: ContentScope): { markdown: string; metadata: PageMetadata } {
  const html = decodeHtml(page.body, page.contentType);
  const document = parseDocument(html);
  const { metadata, signs } = extractMetadata(document, page.finalUrl);
  removeInvisible(document);
  markFootnotes(document);
  resolveUrls(document, documentBase(document, page.finalUrl));
  const root =
    (scope === 'main' ? mainContent(document, { ...signs, url: page.finalUrl }) : undefined) ??
    document.body ??
    document.documentElement;
  if (!root) throw new ServiceError('conversion_failed', 'page has no document element');
  dropOrphanReferences(root as Element);
  return { markdown: toMarkdown(root), metadata };
}

function looksLikeHtml(page: PageBody): boolean {
  if (HTML_TYPES.test(page.contentType)) return true;
  if (page.contentType && !/^text\/plain\b/i.test(page.contentType)) return false;
  const head = page.body.subarray(0, 1024).toString('latin1').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body|p|div)[\s>]/.test(head);
}

/** Whether the scope changes what pageToMarkdown gives: only HTML has a main content apart from the rest. */
export function scopeMatters(page: PageBody): boolean {
  return !isPdf(page.body, page.contentType) && looksLikeHtml(page);
}

/** Any page this service understands (PDF, HTML, plain text) as Markdown and metadata. */
export async function pageToMarkdown(
  page: PageBody,
  scope: ContentScope,
): Promise<{ markdown: string; metadata: PageMetadata }> {
  try {
    if (isPdf(page.body, page.contentType)) return await pdfToMarkdown(page.body);
    if (looksLikeHtml(page)) return htmlToMarkdown(page, scope);
    if (/^text\/plain\b/i.test(page.contentType))
      return { markdown: decodeHtml(page.body, page.contentType), metadata: {} };
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError('conversion_failed', err instanceof Error ? err.message : String(err));
  }
  throw new ServiceError('conversion_failed', `unsupported content type "${page.contentType}"`);
}
