import type { ModelSettings } from '../config';
import { ServiceError } from '../errors';
import { boundMarkdown } from '../extraction/bound';
import { estimateTokens, fitToBudget, splitIntoChunks } from '../structured/chunking';
import type { ContentScope, PageMetadata } from '../types';
import { pageToMarkdown, scopeMatters, type PageBody } from '../extraction/pageToMarkdown';
import type { MarkdownReading } from './markdownReading';
import { researchReadingOf, type ResearchReading } from './researchReading';

/**
 * What an operation wants of a page. The activity that obtains a page reads it before it
 * returns, so page bodies never travel through Temporal: only the reading does, and a reading
 * is bounded (Markdown by MARKDOWN_MAX_BYTES, model input by the token budget and chunk cap).
 */
export type PageReading =
  { as: 'markdown'; content: ContentScope } | { as: 'modelInput' } | { as: 'research'; tokens: number };

export interface ModelInput {
  /** One piece when the page fits one request, else the pieces to extract from one by one. */
  chunks: string[];
  metadata: PageMetadata;
}

export type ReadingOf<R extends PageReading> = R extends { as: 'markdown' }
  ? MarkdownReading
  : R extends { as: 'research' }
    ? ResearchReading
    : ModelInput;

export interface ReadSettings {
  markdownMaxBytes: number;
  model: Pick<ModelSettings, 'contentTokens' | 'maxChunks'>;
}

async function markdownOf(page: PageBody, content: ContentScope, settings: ReadSettings): Promise<MarkdownReading> {
  const converted = await pageToMarkdown(page, content);
  return { content: boundMarkdown(converted.markdown, settings.markdownMaxBytes), metadata: converted.metadata };
}

/**
 * The page as model input: its main content first, then the rest of the page while the token
 * budget allows; a page whose main content alone is over budget is split into chunks.
 */
async function modelInputOf(page: PageBody, settings: ReadSettings): Promise<ModelInput> {
  // A page cut off at the download cap would give answers from part of it.
  if (page.truncated) throw new ServiceError('page_too_large', `page over the download cap: ${page.finalUrl}`);
  const main = await pageToMarkdown(page, 'main');
  const budget = settings.model.contentTokens;
  let chunks: string[];
  if (estimateTokens(main.markdown) > budget) {
    chunks = splitIntoChunks(main.markdown, budget);
  } else {
    // A PDF's or a text's main content is all of it: converting it again cost a PDF its conversion twice.
    const full = scopeMatters(page) ? await pageToMarkdown(page, 'full') : main;
    chunks = [fitToBudget(main.markdown, full.markdown, budget)];
  }
  if (chunks.length > settings.model.maxChunks) {
    throw new ServiceError(
      'page_too_large',
      `${chunks.length} chunks of ${budget} tokens needed, ${settings.model.maxChunks} allowed`,
    );
  }
  return { chunks, metadata: main.metadata };
}

/**
 * A page too big, too deep or too slow to read within the bounds. Extract Markdown's spec has one
 * answer for a page it cannot convert, `failed to convert HTML to Markdown`; the JSON operations
 * have `web page is too large`.
 */
export function tooCostly(reading: PageReading, detail: string): ServiceError {
  return new ServiceError(reading.as === 'modelInput' ? 'page_too_large' : 'page_too_large_to_convert', detail);
}

export async function readPage<R extends PageReading>(
  page: PageBody,
  reading: R,
  settings: ReadSettings,
): Promise<ReadingOf<R>> {
  try {
    if (reading.as === 'markdown') return (await markdownOf(page, reading.content, settings)) as ReadingOf<R>;
    if (reading.as === 'research')
      return researchReadingOf(await markdownOf(page, 'main', settings), reading.tokens, page.finalUrl) as ReadingOf<R>;
    return (await modelInputOf(page, settings)) as ReadingOf<R>;
  } catch (err) {
    if (err instanceof ServiceError && err.code === 'page_too_large')
      throw tooCostly(reading, err.detail ?? err.message);
    throw err;
  }
}
