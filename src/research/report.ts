import type {
  CitedPage,
  GapEvaluation,
  Judgment,
  ResearchMetadata,
  ResearchMetrics,
  ResearchMode,
} from '../events/research';
import type { Evaluation, Outline, Plan, Verdict } from '../prompts/research.v1';
import { finalizeReport, type CitableSource } from './citations';
import type { AnalyzedPage } from './pages';

/** What a run gathered on its way to the report. */
export interface ResearchRecord {
  query: string;
  mode: ResearchMode;
  plan: Plan;
  questions: string[];
  /** The queries run, one list per round. */
  executedQueries: string[][];
  analyzed: AnalyzedPage[];
  evaluations: GapEvaluation[];
  judgments: Judgment[];
}

/** An evaluation as the report's metadata keeps it, with the queries the run went on to search. */
export function gapEvaluation(evaluation: Evaluation, searchQueries: string[]): GapEvaluation {
  return {
    researchCoverage: evaluation.coverage,
    gapDescription: evaluation.gaps,
    questionAssessments: evaluation.assessments,
    shouldContinueResearch: evaluation.shouldContinue,
    newResearchQuestions: evaluation.newQuestions,
    searchQueries,
  };
}

export function judgmentOf(verdict: Verdict): Judgment {
  return {
    approved: verdict.approved,
    score: verdict.score,
    observation: verdict.observation,
    ...(verdict.feedback ? { feedback: verdict.feedback } : {}),
  };
}

/**
 * The report the run completes with, its citations renumbered (see finalizeReport), and its
 * metadata: each cited page with what research learned of it, the path the run took, its metrics.
 * `sources` are the pages the writer was given; `outline` is absent when none was made (`fast`).
 */
export function assembleReport(
  draft: string,
  sources: CitableSource[],
  record: ResearchRecord,
  metrics: ResearchMetrics,
  outline?: Outline,
): { report: string; metadata: ResearchMetadata & { citedPages: CitedPage[] } } {
  const pages = new Map(record.analyzed.map((page) => [page.id, page]));
  const final = finalizeReport(draft, sources);
  const citedPages: CitedPage[] = final.cited.map(({ source, number, claims }) => {
    const page = pages.get(source.id)!;
    return {
      id: String(number),
      url: page.url,
      title: page.title,
      claims,
      sourceQueries: page.sourceQueries,
      urlSource: page.urlSource,
      relevance: page.analysis.relevance,
      reliability: page.analysis.reliability,
      summary: page.analysis.summary,
      depth: page.depth,
      ...(page.parentUrl ? { parentUrl: page.parentUrl } : {}),
    };
  });
  const renumbered = new Map(final.cited.map(({ source, number }) => [source.id, String(number)]));
  const metadata: ResearchMetadata & { citedPages: CitedPage[] } = {
    prompt: record.query,
    mode: record.mode,
    queryComplexity: record.plan.complexity,
    researchObjective: record.plan.objective,
    researchPlan: record.plan.plan,
    researchQuestions: record.questions,
    executedQueries: record.executedQueries,
    totalPagesAnalyzed: record.analyzed.length,
    citedPages,
    gapEvaluations: record.evaluations,
    judgments: record.judgments,
    metrics,
    ...(outline
      ? {
          outline: {
            directAnswer: outline.directAnswer,
            keyTakeaways: outline.keyTakeaways,
            outline: outline.outline,
            relevantSourceIds: sources
              .map((source) => renumbered.get(source.id))
              .filter((id): id is string => id !== undefined),
          },
        }
      : {}),
    urlSources: {
      userProvided: record.analyzed.filter((page) => page.urlSource === 'user-input').length,
      searchResults: record.analyzed.filter((page) => page.urlSource === 'search-result').length,
      extractedLinks: record.analyzed.filter((page) => page.urlSource === 'extracted-link').length,
    },
  };
  return { report: final.report, metadata };
}
