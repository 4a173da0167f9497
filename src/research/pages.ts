import type { PageSample, UrlSource } from '../events/research';
import type { PageAnalysis, SourceNote } from '../prompts/research.v1';
import type { ResearchReading } from '../reading/researchReading';
import { domainOf } from './queryUrls';

/** A page to read: where it came from and why. */
export interface PageTarget {
  url: string;
  urlSource: UrlSource;
  title?: string;
  sourceQueries: string[];
  depth: number;
  parentUrl?: string;
  /** Already read (pages the query named, read before planning). */
  reading?: ResearchReading;
}

/** A page research fetched and analyzed: what the report may cite. */
export interface AnalyzedPage extends PageTarget {
  /** The number notes give it. */
  id: number;
  title: string;
  iteration: number;
  analysis: PageAnalysis;
}

/** Characters of a page's lead passage that stand for its summary in `fast`. */
const SUMMARY_CHARS = 600;

/** The title a page goes by: its own, else the search result's, else its address. */
export function titleOf(target: PageTarget, reading: ResearchReading): string {
  return reading.metadata.title || target.title || target.url;
}

/**
 * A page `fast` read for its passages. Not assessed: no model reads a page in `fast`, so its
 * ratings are neutral and its lead passage stands for its summary.
 */
export function excerptedPage(
  target: PageTarget,
  read: { id: number; title: string; iteration: number; passages: string[] },
): AnalyzedPage {
  return {
    ...target,
    reading: undefined,
    id: read.id,
    title: read.title,
    iteration: read.iteration,
    analysis: {
      relevance: 'medium',
      reliability: 'medium',
      summary: read.passages[0]!.slice(0, SUMMARY_CHARS),
      keyFacts: [],
      promisingLinks: [],
    },
  };
}

/** A page as events show it: no page text. */
export function sampleOf(page: AnalyzedPage): PageSample {
  return {
    url: page.url,
    title: page.title,
    domain: domainOf(page.url),
    urlSource: page.urlSource,
    relevance: page.analysis.relevance,
    reliability: page.analysis.reliability,
    summary: page.analysis.summary,
  };
}

/** What the model is told of each page when it weighs coverage, outlines and writes. */
export function notesOf(pages: AnalyzedPage[]): SourceNote[] {
  return pages.map((page) => ({
    id: page.id,
    url: page.url,
    title: page.title,
    relevance: page.analysis.relevance,
    reliability: page.analysis.reliability,
    summary: page.analysis.summary,
    keyFacts: page.analysis.keyFacts,
  }));
}
