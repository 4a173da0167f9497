import { ApplicationFailure } from '@temporalio/common';
import { parseHTML } from 'linkedom';
import { PAGE_GONE, ServiceError } from '../errors';
import { boundMarkdown } from '../extraction/bound';
import { decodeHtml } from '../extraction/decode';
import { mainContent } from '../extraction/mainContent';
import { isPdf, pdfToMarkdown } from '../extraction/pdf';
import { toMarkdown } from '../extraction/markdown';
import { documentBase, extractMetadata } from '../extraction/metadata';
import { removeInvisible, resolveUrls } from '../extraction/prepare';
import type { ContentScope, PageMetadata } from '../types';
import { reportingFailures } from './failures';
import type { PageStore, StoredPage } from './pageStore';

export interface ConvertPageInput {
  pageId: string;
  content: ContentScope;
}

export interface ConvertPageResult {
  content: string;
  metadata: PageMetadata;
}

export interface ConvertActivityDeps {
  store: PageStore;
  markdownMaxBytes: number;
}

const HTML_TYPES = /^(text\/html|application\/xhtml\+xml|application\/xml|text\/xml)\b/i;

function htmlToMarkdown(page: StoredPage, scope: ContentScope): { markdown: string; metadata: PageMetadata } {
  const html = decodeHtml(page.body, page.contentType);
  const { document } = parseHTML(html);
  const metadata = extractMetadata(document, page.finalUrl);
  removeInvisible(document);
  resolveUrls(document, documentBase(document, page.finalUrl));
  const root = (scope === 'main' ? mainContent(document) : undefined) ?? document.body ?? document.documentElement;
  if (!root) throw new ServiceError('conversion_failed', 'page has no document element');
  return { markdown: toMarkdown(root), metadata };
}

function looksLikeHtml(page: StoredPage): boolean {
  if (HTML_TYPES.test(page.contentType)) return true;
  if (page.contentType && !/^text\/plain\b/i.test(page.contentType)) return false;
  const head = page.body.subarray(0, 1024).toString('latin1').trimStart().toLowerCase();
  return head.startsWith('<!doctype html') || head.startsWith('<html') || /<(head|body|p|div)[\s>]/.test(head);
}

/** Any page this service understands (PDF, HTML, plain text) as Markdown and metadata. */
export async function pageToMarkdown(page: StoredPage, scope: ContentScope): Promise<{ markdown: string; metadata: PageMetadata }> {
  try {
    if (isPdf(page.body, page.contentType)) return await pdfToMarkdown(page.body);
    if (looksLikeHtml(page)) return htmlToMarkdown(page, scope);
    if (/^text\/plain\b/i.test(page.contentType)) return { markdown: decodeHtml(page.body, page.contentType), metadata: {} };
  } catch (err) {
    if (err instanceof ServiceError) throw err;
    throw new ServiceError('conversion_failed', err instanceof Error ? err.message : String(err));
  }
  throw new ServiceError('conversion_failed', `unsupported content type "${page.contentType}"`);
}

/** The page a holder process keeps for `pageId`, or the failure that makes the workflow fetch again. */
export function heldPage(store: PageStore, pageId: string): StoredPage {
  const page = store.get(pageId);
  if (!page) throw ApplicationFailure.create({ type: PAGE_GONE, message: `page ${pageId} is no longer held`, nonRetryable: true });
  return page;
}

export function createConvertActivities(deps: ConvertActivityDeps) {
  return {
    /** Turns a page held by this process into Markdown and metadata. */
    async convertPage(input: ConvertPageInput): Promise<ConvertPageResult> {
      const page = heldPage(deps.store, input.pageId);
      return reportingFailures(async () => {
        const converted = await pageToMarkdown(page, input.content);
        deps.store.delete(input.pageId);
        return { content: boundMarkdown(converted.markdown, deps.markdownMaxBytes), metadata: converted.metadata };
      }, () => false);
    },
  };
}

export type ConvertActivities = ReturnType<typeof createConvertActivities>;
