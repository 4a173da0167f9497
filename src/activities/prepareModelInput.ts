import type { ModelSettings } from '../config';
import { ServiceError } from '../errors';
import { fitToBudget, estimateTokens, splitIntoChunks } from '../structured/chunking';
import type { PageMetadata } from '../types';
import { heldPage, pageToMarkdown } from './convertPage';
import { reportingFailures } from './failures';
import type { PageStore } from './pageStore';

export interface PrepareModelInputInput {
  pageId: string;
}

export interface ModelInput {
  /** One piece when the page fits one request, else the pieces to extract from one by one. */
  chunks: string[];
  metadata: PageMetadata;
}

export interface ModelInputDeps {
  store: PageStore;
  model: Pick<ModelSettings, 'contentTokens' | 'maxChunks'>;
}

export function createModelInputActivities(deps: ModelInputDeps) {
  return {
    /**
     * A held page as model input: its main content first, then the rest of the page while the
     * token budget allows; a page whose main content alone is over budget is split into chunks.
     */
    async prepareModelInput(input: PrepareModelInputInput): Promise<ModelInput> {
      const page = heldPage(deps.store, input.pageId);
      return reportingFailures(async () => {
        // A page cut off at the download cap would give answers from part of it.
        if (page.truncated) throw new ServiceError('page_too_large', `page over the download cap: ${page.finalUrl}`);
        const main = await pageToMarkdown(page, 'main');
        const budget = deps.model.contentTokens;
        let chunks: string[];
        if (estimateTokens(main.markdown) > budget) {
          chunks = splitIntoChunks(main.markdown, budget);
        } else {
          const full = await pageToMarkdown(page, 'full');
          chunks = [fitToBudget(main.markdown, full.markdown, budget)];
        }
        if (chunks.length > deps.model.maxChunks) {
          throw new ServiceError('page_too_large', `${chunks.length} chunks of ${budget} tokens needed, ${deps.model.maxChunks} allowed`);
        }
        deps.store.delete(input.pageId);
        return { chunks, metadata: main.metadata };
      }, () => false);
    },
  };
}

export type ModelInputActivities = ReturnType<typeof createModelInputActivities>;
