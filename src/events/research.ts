/**
 * The Research stream (spec §6.2): each event name and its payload. Where the spec leaves a
 * payload open, the official client's `ResearchEvent` types decide; test/eventTypes.test.ts
 * checks that every payload here is assignable to them, and that the names are the same set.
 */

/**
 * The step a run is in. Spec §2.13 calls it an activity, and so does the `error` event's field
 * on the wire; the code says phase, since an activity is something else in Temporal.
 */
export type ResearchPhase =
  | 'prefetching'
  | 'planning'
  | 'iteration'
  | 'searching'
  | 'analyzing'
  | 'following'
  | 'evaluating'
  | 'outlining'
  | 'writing'
  | 'judging';

/** Spec §2.13. */
export type Coverage = 'Light' | 'Moderate' | 'Solid' | 'Comprehensive';

export type ResearchMode = 'fast' | 'balanced';
export type Rating = 'low' | 'medium' | 'high';
export type UrlSource = 'user-input' | 'search-result' | 'extracted-link';
export type QueryComplexity = 'simple' | 'moderate' | 'complex';

/** Every research payload carries these (spec §6.2). */
export interface Stamped extends Unstamped {
  /** Milliseconds since the epoch, when the workflow recorded the event. */
  timestamp: number;
}

/** What every payload carries before it is recorded. */
export interface Unstamped {
  message: string;
}

/** A page as events show it: no page text, so events stay small. */
export interface PageSample {
  url: string;
  title: string;
  domain: string;
  urlSource: UrlSource;
  relevance?: Rating;
  reliability?: Rating;
  summary?: string;
}

export interface QuestionAssessment {
  question: string;
  status: 'answered' | 'partial' | 'unanswered';
  /** What was learned, or what is missing. */
  findings: string;
}

export interface CitedPage {
  /** The number the report cites it by. */
  id: string;
  url: string;
  title?: string;
  claims: string[];
  sourceQueries: string[];
  urlSource?: UrlSource;
  relevance?: Rating;
  reliability?: Rating;
  summary?: string;
  depth?: number;
  parentUrl?: string;
}

export interface GapEvaluation {
  researchCoverage: Coverage;
  gapDescription: string;
  questionAssessments: QuestionAssessment[];
  shouldContinueResearch: boolean;
  newResearchQuestions?: string[];
  searchQueries?: string[];
}

export interface Judgment {
  approved: boolean;
  score: number;
  observation: string;
  feedback?: string;
}

export interface ResearchMetrics {
  iterations: number;
  fetches: number;
  cachedFetches: number;
  robotsBlocked: number;
  /** Searches by engine. */
  searches: Record<string, number>;
  cachedSearches: Record<string, number>;
  successRates: { fetches: number; searches: number; analyzes: number };
  /** Duration of each phase, in milliseconds. */
  phases: Record<string, { duration: number }>;
  /** Tokens by model task. */
  tokens: Record<string, { input: number; output: number }>;
  totalDuration: number;
}

export interface ResearchMetadata {
  prompt: string;
  mode: ResearchMode;
  queryComplexity: QueryComplexity;
  researchObjective: string;
  researchPlan: string;
  researchQuestions: string[];
  /** The queries run, one list per iteration. */
  executedQueries: string[][];
  totalPagesAnalyzed: number;
  citedPages?: CitedPage[];
  gapEvaluations?: GapEvaluation[];
  judgments?: Judgment[];
  metrics?: ResearchMetrics;
  outline?: { directAnswer: string; keyTakeaways: string[]; outline: string; relevantSourceIds: string[] };
  urlSources?: { userProvided: number; searchResults: number; extractedLinks: number };
}

/** Each event's own fields: what the workflow gives, before the log stamps the time on. */
export interface ResearchPayloads {
  start: Unstamped;
  'prefetching:start': Unstamped & { urls: string[]; urlCount: number };
  'prefetching:end': Unstamped & { fetched: number; failed: number };
  'planning:start': Unstamped & { hasPrefetchedContext: boolean };
  'planning:end': Unstamped & {
    objective: string;
    plan: string;
    questions: string[];
    queries: string[];
    complexity: QueryComplexity;
  };
  'iteration:start': Unstamped & { iteration: number; maxIterations: number; queries: string[] };
  'iteration:end': Unstamped & {
    iteration: number;
    isLast: boolean;
    /** Only on the last iteration. */
    stopReason?: 'max_iterations' | 'coverage_sufficient';
  };
  'searching:start': Unstamped & { iteration: number; queries: string[] };
  'searching:end': Unstamped & { iteration: number; urlsFound: number; urlsNew: number };
  'analyzing:start': Unstamped & { iteration: number; pageCount: number };
  'analyzing:end': Unstamped & { iteration: number; analyzed: number; failed: number; samples: PageSample[] };
  'following:start': Unstamped & { iteration: number; linkCount: number };
  'following:end': Unstamped & { iteration: number; followed: number; failed: number; samples: PageSample[] };
  'evaluating:start': Unstamped & { iteration: number; pagesAnalyzed: number; questionCount: number };
  'evaluating:end': Unstamped & {
    iteration: number;
    coverage: Coverage;
    gaps: string;
    shouldContinue: boolean;
    questionAssessments: QuestionAssessment[];
    nextQueries: string[];
  };
  'outlining:start': Unstamped & { pagesAnalyzed: number; qualityPageCount: number };
  'outlining:end': Unstamped & { sourcesSelected: number };
  'writing:start': Unstamped & { attempt: number; maxAttempts: number; isRevision: boolean; previousScore?: number };
  'writing:end': Unstamped & { attempt: number };
  'judging:start': Unstamped & { attempt: number; maxAttempts: number };
  'judging:end': Unstamped & { attempt: number; approved: boolean; score: number; feedback?: string };
  complete: Unstamped & { report: string; metadata: ResearchMetadata };
  error: Unstamped & {
    error: { name: string; message: string; stack?: string };
    activity?: ResearchPhase;
    iteration?: number;
  };
}

/**
 * The stream's events. Mapped from the payloads, so `ResearchEvents[E]` is `Stamped &
 * ResearchPayloads[E]` even for a generic `E`: stamping a payload needs no cast.
 */
export type ResearchEvents = { [E in keyof ResearchPayloads]: Stamped & ResearchPayloads[E] };
