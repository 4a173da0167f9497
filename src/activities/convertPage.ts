import { ApplicationFailure } from '@temporalio/common';
import { parseHTML } from 'linkedom';
import { PAGE_GONE, ServiceError } from '../errors';
import { boundMarkdown } from '../extraction/bound';
import { decodeHtml } from '../extraction/decode';
import { withFrontMatter } from '../extraction/frontMatter';
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
  /** True: metadata returned apart. False: metadata as front matter at the top of the content. */
  metadataApart: boolean;
}

export interface ConvertPageResult {
  content: string;
  metadata?: PageMetadata;
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

export function createConvertActivities(deps: ConvertActivityDeps) {
  return {
    /** Turns a page held by this process into Markdown and metadata. */
    async convertPage(input: ConvertPageInput): Promise<ConvertPageResult> {
      const page = deps.store.get(input.pageId);
      if (!page) {
        throw ApplicationFailure.create({ type: PAGE_GONE, message: `page ${input.pageId} is no longer held`, nonRetryable: true });
      }
      return reportingFailures(
        async () => {
          let converted: { markdown: string; metadata: PageMetadata };
          try {
            if (isPdf(page.body, page.contentType)) {
              converted = await pdfToMarkdown(page.body);
            } else if (looksLikeHtml(page)) {
              converted = htmlToMarkdown(page, input.content);
            } else if (/^text\/plain\b/i.test(page.contentType)) {
              converted = { markdown: decodeHtml(page.body, page.contentType), metadata: {} };
            } else {
              throw new ServiceError('conversion_failed', `unsupported content type "${page.contentType}"`);
            }
          } catch (err) {
            if (err instanceof ServiceError) throw err;
            throw new ServiceError('conversion_failed', err instanceof Error ? err.message : String(err));
          }
          const markdown = boundMarkdown(converted.markdown, deps.markdownMaxBytes);
          deps.store.delete(input.pageId);
          return input.metadataApart
            ? { content: markdown, metadata: converted.metadata }
            : { content: withFrontMatter(markdown, converted.metadata) };
        },
        () => false,
      );
    },
  };
}

export type ConvertActivities = ReturnType<typeof createConvertActivities>;
