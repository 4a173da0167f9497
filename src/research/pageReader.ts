import { isCancellation } from '@temporalio/workflow';
import type { ModelReply } from '../model/structuredAsk';
import type { PageAnalysis, SourceExcerpts } from '../prompts/research.v1';
import type { ResearchReading } from '../reading/researchReading';
import { failureText } from '../temporal/failureText';
import { rankedExcerpts } from './excerpts';
import { mapBounded } from './mapBounded';
import { FAST_EXCERPTS } from './modes';
import { excerptedPage, titleOf, type AnalyzedPage, type PageTarget } from './pages';
import { pageKey } from './queryUrls';
import type { RunMetrics } from './runMetrics';

/** The activities a run reads pages with, and its log. */
export interface ReadingSteps {
  checkRobots(input: { urls: string[] }): Promise<{ blocked: string[] }>;
  /** A page through the extraction pipeline; rejects when it cannot be read. */
  obtain(url: string): Promise<{ reading: ResearchReading; cached?: boolean }>;
  log: {
    info(message: string, attributes: Record<string, unknown>): void;
    warn(message: string, attributes: Record<string, unknown>): void;
  };
}

/** A model's analysis of one page. */
export type PageAnalyst = (
  target: PageTarget,
  title: string,
  reading: ResearchReading,
) => Promise<ModelReply<PageAnalysis>>;

/**
 * The pages of one research run: reads each at most once, as robots.txt allows, a few at a time,
 * and numbers those read for the notes and the report. A page that cannot be read or analyzed is
 * counted and logged, never fatal; cancellation always goes through.
 */
export class PageReader {
  /** Pages read (analyzed, or excerpted in `fast`), numbered from 1 in the order they joined. */
  readonly analyzed: AnalyzedPage[] = [];
  /** Every page seen (read, failed, refused or queued), by pageKey, so none is read twice. */
  readonly seen = new Set<string>();

  constructor(
    private readonly steps: ReadingSteps,
    private readonly metrics: RunMetrics,
    /** Pages read at once. */
    private readonly concurrency: number,
  ) {}

  /** Reads the pages a query names, before planning; those robots.txt refuses or already seen are skipped. */
  async prefetch(urls: string[]): Promise<PageTarget[]> {
    const allowed = new Set((await this.allowedByRobots(urls.map((url) => ({ url })))).map((target) => target.url));
    const pages = await mapBounded(urls, this.concurrency, async (url): Promise<PageTarget | undefined> => {
      if (!allowed.has(url) || this.seen.has(pageKey(url))) return undefined;
      this.seen.add(pageKey(url));
      const reading = await this.fetch(url);
      return (
        reading && { url, urlSource: 'user-input', title: reading.metadata.title, sourceQueries: [], depth: 0, reading }
      );
    });
    return pages.filter((page): page is PageTarget => page !== undefined);
  }

  /**
   * The targets robots.txt lets research fetch, in order; the others are counted and never asked
   * for again. Pages already read are not checked again.
   */
  async allowedByRobots<T extends { url: string; reading?: ResearchReading }>(targets: T[]): Promise<T[]> {
    const asking = targets.filter((target) => !target.reading);
    if (asking.length === 0) return targets;
    const { blocked } = await this.steps.checkRobots({ urls: asking.map((target) => target.url) });
    if (blocked.length === 0) return targets;
    const refused = new Set(blocked);
    for (const url of refused) this.seen.add(pageKey(url));
    this.metrics.robotsBlocked += refused.size;
    return targets.filter((target) => target.reading || !refused.has(target.url));
  }

  /** Reads and analyzes the pages; each page's fetch and analysis are activities of their own. */
  async analyze(iteration: number, targets: PageTarget[], analyst: PageAnalyst): Promise<AnalyzedPage[]> {
    for (const target of targets) this.seen.add(pageKey(target.url));
    const pages = await mapBounded(targets, this.concurrency, async (target) => {
      const reading = target.reading ?? (await this.fetch(target.url));
      if (!reading) return undefined;
      const title = titleOf(target, reading);
      this.metrics.analyzes++;
      let analysis: PageAnalysis;
      try {
        const reply = await analyst(target, title, reading);
        this.metrics.countTokens(reply);
        analysis = reply.value;
      } catch (err) {
        if (isCancellation(err)) throw err;
        this.steps.log.warn('page analysis failed', { error: failureText(err) });
        return undefined;
      }
      this.metrics.analyzesOk++;
      const page: AnalyzedPage = { ...target, reading: undefined, id: 0, title, iteration, analysis };
      return page;
    });
    const read = pages.filter((page): page is AnalyzedPage => page !== undefined);
    for (const page of read) {
      page.id = this.analyzed.length + 1;
      this.analyzed.push(page);
    }
    return read;
  }

  /**
   * Reads the pages and keeps the passages of each that bear most on `topic` (FAST_EXCERPTS):
   * what `fast` writes from instead of a model's analysis of every page.
   */
  async excerpts(iteration: number, targets: PageTarget[], topic: string): Promise<SourceExcerpts[]> {
    for (const target of targets) this.seen.add(pageKey(target.url));
    const pages = await mapBounded(targets, this.concurrency, async (target) => {
      const reading = target.reading ?? (await this.fetch(target.url));
      return reading && { target, reading, title: titleOf(target, reading) };
    });
    const read = pages.filter((page) => page !== undefined);
    const excerpts = rankedExcerpts(
      read.map((page, index) => ({ id: index, content: page.reading.content })),
      topic,
      FAST_EXCERPTS,
    );
    const sources: SourceExcerpts[] = [];
    read.forEach((page, index) => {
      const passages = excerpts.get(index);
      if (!passages) return;
      const id = this.analyzed.length + 1;
      this.analyzed.push(excerptedPage(page.target, { id, title: page.title, iteration, passages }));
      sources.push({ id, url: page.target.url, title: page.title, excerpts: passages });
    });
    return sources;
  }

  /** A page's reading; undefined when it cannot be read or has no text. */
  private async fetch(url: string): Promise<ResearchReading | undefined> {
    this.metrics.fetches++;
    try {
      const page = await this.steps.obtain(url);
      if (page.cached) this.metrics.cachedFetches++;
      this.metrics.fetchesOk++;
      return page.reading.content.trim() ? page.reading : undefined;
    } catch (err) {
      if (isCancellation(err)) throw err;
      this.steps.log.info('page not read', { error: failureText(err) });
      return undefined;
    }
  }
}
