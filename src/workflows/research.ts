import {
  ApplicationFailure,
  isCancellation,
  log as workflowLog,
  patched,
  proxyActivities,
  upsertMemo,
} from '@temporalio/workflow';
import type { RobotsActivities } from '../activities/checkRobots';
import type { PageCacheUse } from '../cache/pageCache';
import type { ResearchModelActivities, ResearchReply } from '../activities/researchModel';
import type { ResearchReading } from '../reading/researchReading';
import type { SearchActivities, SearchWebResult } from '../activities/searchWeb';
import { ERRORS, type ErrorCode } from '../errors';
import type { ResearchInput } from '../operations/research';
import { EventLog } from '../events/eventLog';
import type {
  CitedPage,
  GapEvaluation,
  Judgment,
  PageSample,
  ResearchPayloads,
  ResearchPhase,
  ResearchEvents,
  ResearchMetadata,
  ResearchMetrics,
  UrlSource,
} from '../events/research';
import { researchStream } from '../events/streams';
import { addUsage, noUsage } from '../model/usage';
import { failureText } from '../temporal/failureText';
import type { Evaluation, Outline, PageAnalysis, Plan, SourceExcerpts, SourceNote } from '../prompts/research.v1';
import { finalizeReport, type CitableSource } from '../research/citations';
import { rankedExcerpts } from '../research/excerpts';
import { FAST_EXCERPTS, MODE_BUDGETS, type ModeBudget } from '../research/modes';
import { domainOf, pageKey, urlsInQuery } from '../research/queryUrls';
import { stopReasonAfter, type StopReason } from '../research/stopRule';
import { HEARTBEAT_TIMEOUT } from './heartbeat';
import { obtainPageFacts } from './obtainPage';
import { recordingOutcome } from './outcome';

/** A page to read: where it came from and why. */
interface PageTarget {
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
interface AnalyzedPage extends PageTarget {
  /** The number notes give it. */
  id: number;
  title: string;
  iteration: number;
  analysis: PageAnalysis;
}

/**
 * `fast` runs the hosted service's shape: plan, one round of searching and reading, one writing
 * call. Runs started before it took the analyzing, evaluating, outlining and judging path;
 * `patched` sends their replays down it again.
 */
export const FAST_SHAPE_PATCH = 'research-fast-shape';

/** A research step failed for the whole run: the error event says which, then the run fails. */
class ResearchFailure extends Error {
  constructor(
    readonly code: ErrorCode,
    detail: string,
  ) {
    super(detail);
  }
}

const MODEL_OPTIONS = {
  startToCloseTimeout: '10m',
  heartbeatTimeout: HEARTBEAT_TIMEOUT,
  retry: { maximumAttempts: 5, initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '1m' },
} as const;

const ROBOTS_OPTIONS = {
  startToCloseTimeout: '60s',
  retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
} as const;

const SEARCH_OPTIONS = {
  startToCloseTimeout: '90s',
  retry: { maximumAttempts: 3, initialInterval: '1s', backoffCoefficient: 2 },
} as const;

/** Characters of a page's lead passage that stand for its summary in `fast`. */
const SUMMARY_CHARS = 600;

const RATING_ORDER = { high: 0, medium: 1, low: 2 } as const;

/**
 * Research (spec 2.8, 6.2). `fast`: plan, one round of searching and reading, one answer written
 * from the pages' best passages. `balanced`: plan, then rounds of searching, reading and
 * analyzing pages and following their best links until coverage is enough or the rounds run
 * out; then outline, write a report citing only the pages read, have it reviewed (one revision
 * at most). Both complete with the report and its cited pages. Every step is an activity; each
 * page's fetch (and, in `balanced`, its analysis) is an activity of its own, so a worker lost
 * mid-run costs only the steps it had in hand.
 */
export async function research(input: ResearchInput): Promise<void> {
  const log = new EventLog<ResearchEvents>(researchStream, input.stream);
  await recordingOutcome(() => log.run(() => new ResearchRun(input, log).run()));
}

class ResearchRun {
  private readonly budget: ModeBudget;
  private readonly startedAt = Date.now();
  private readonly model;
  private readonly search;
  private readonly robots;
  private phase?: ResearchPhase;
  private iteration?: number;

  private plan!: Plan;
  private questions: string[] = [];
  private readonly executedQueries: string[][] = [];
  private readonly analyzed: AnalyzedPage[] = [];
  /** Every page seen (read, failed or queued), by pageKey, so none is read twice. */
  private readonly seen = new Set<string>();
  private readonly evaluations: GapEvaluation[] = [];
  private readonly judgments: Judgment[] = [];
  private readonly metrics = {
    fetches: 0,
    cachedFetches: 0,
    robotsBlocked: 0,
    fetchesOk: 0,
    searches: {} as Record<string, number>,
    searchesRun: 0,
    searchesOk: 0,
    analyzes: 0,
    analyzesOk: 0,
    phases: {} as Record<string, { duration: number }>,
    tokens: {} as Record<string, { input: number; output: number }>,
  };
  private readonly usage = noUsage();

  constructor(
    private readonly input: ResearchInput,
    private readonly log: EventLog<ResearchEvents>,
  ) {
    this.budget = MODE_BUDGETS[input.request.mode];
    this.model = proxyActivities<ResearchModelActivities>({
      taskQueue: input.queues.model,
      ...MODEL_OPTIONS,
      ...(input.timeouts ? { startToCloseTimeout: input.timeouts.modelMs } : {}),
    });
    this.search = proxyActivities<SearchActivities>({ taskQueue: input.queues.search, ...SEARCH_OPTIONS });
    this.robots = proxyActivities<RobotsActivities>({ taskQueue: input.queues.fetch, ...ROBOTS_OPTIONS });
  }

  /**
   * Records an event with its time. Callers are held to the event's own payload. The log is
   * handed it as any event's: for a generic E, TypeScript checks a value against
   * ResearchEvents[E] as if it had to be every event's at once.
   */
  private emit<E extends keyof ResearchPayloads>(event: E, data: ResearchPayloads[E]): void {
    this.log.emit<keyof ResearchEvents>(event, { ...data, timestamp: Date.now() });
  }

  async run(): Promise<void> {
    try {
      await this.research();
    } catch (err) {
      if (isCancellation(err)) throw err;
      const code: ErrorCode = err instanceof ResearchFailure ? err.code : 'internal';
      const message = ERRORS[code].message;
      workflowLog.warn('research failed', {
        code,
        step: this.phase,
        iteration: this.iteration,
        error: failureText(err),
      });
      this.emit('error', {
        message,
        error: { name: code, message },
        ...(this.phase ? { activity: this.phase } : {}),
        ...(this.iteration !== undefined ? { iteration: this.iteration } : {}),
      });
      upsertMemo({ usage: this.usage });
      throw ApplicationFailure.nonRetryable(`${message}: ${failureText(err)}`, code);
    }
  }

  private async research(): Promise<void> {
    const { query, mode } = this.input.request;
    this.emit('start', { message: `Researching in ${mode} mode` });
    const fastShape = mode === 'fast' && patched(FAST_SHAPE_PATCH);
    const prefetched = await this.runPhase('prefetching', () => this.prefetch());
    this.plan = await this.runPhase('planning', () => this.planResearch(prefetched));
    this.questions = this.plan.questions.length > 0 ? this.plan.questions : [query];
    let queries = this.plan.queries.length > 0 ? this.plan.queries : [query];
    if (fastShape) return this.answerFast(prefetched, queries);
    for (let iteration = 1; iteration <= this.budget.maxIterations; iteration++) {
      this.iteration = iteration;
      this.phase = 'iteration';
      const started = Date.now();
      this.emit('iteration:start', {
        message: `Round ${iteration} of at most ${this.budget.maxIterations}`,
        iteration,
        maxIterations: this.budget.maxIterations,
        queries,
      });
      const found = await this.runPhase('searching', () => this.searchFor(iteration, queries));
      const read = await this.runPhase('analyzing', () =>
        this.analyzeAll(iteration, iteration === 1 ? prefetched : [], found),
      );
      if (this.budget.follow > 0) await this.runPhase('following', () => this.follow(iteration, read));
      const { evaluation, stopReason } = await this.runPhase('evaluating', () => this.evaluate(iteration));
      this.addPhase('iteration', started);
      this.phase = 'iteration';
      if (stopReason) {
        this.emit('iteration:end', {
          message:
            stopReason === 'coverage_sufficient'
              ? `Coverage is ${evaluation.coverage}: research stops`
              : 'The last round is done',
          iteration,
          isLast: true,
          stopReason,
        });
        break;
      }
      this.emit('iteration:end', {
        message: `Round ${iteration} done; searching again for the gaps`,
        iteration,
        isLast: false,
      });
      queries = evaluation.nextQueries;
      this.questions = [...this.questions, ...evaluation.newQuestions];
    }
    this.iteration = undefined;
    if (this.analyzed.length === 0) throw new ResearchFailure('no_sources', 'no page could be fetched and analyzed');
    const { outline, notes } = await this.runPhase('outlining', () => this.outline());
    const report = await this.writeAndJudge(outline, notes);
    this.complete(report, notes, outline);
  }

  /**
   * `fast`: one round of searching and reading, and the pages' own best passages go to one
   * writing call; no model reads a page, weighs coverage, outlines or reviews. Two sequential
   * model calls in all, as the hosted `fast` makes.
   */
  private async answerFast(prefetched: PageTarget[], queries: string[]): Promise<void> {
    const iteration = 1;
    this.iteration = iteration;
    this.phase = 'iteration';
    const started = Date.now();
    this.emit('iteration:start', {
      message: 'One round of searching and reading',
      iteration,
      maxIterations: 1,
      queries,
    });
    const sources = await this.runPhase('searching', async () => {
      const found = await this.searchFor(iteration, queries);
      const allowed = await this.allowedByRobots(found);
      return this.readExcerpts(iteration, [...prefetched, ...allowed.slice(0, this.budget.pagesPerIteration)]);
    });
    this.addPhase('iteration', started);
    this.phase = 'iteration';
    this.emit('iteration:end', {
      message: `Read ${sources.length} page(s)`,
      iteration,
      isLast: true,
      stopReason: 'max_iterations',
    });
    this.iteration = undefined;
    if (sources.length === 0) throw new ResearchFailure('no_sources', 'no page could be fetched and read');
    this.phase = 'writing';
    const writing = Date.now();
    this.emit('writing:start', { message: 'Writing the answer', attempt: 1, maxAttempts: 1, isRevision: false });
    const { report } = await this.required(() =>
      this.model.writeAnswer({
        query: this.input.request.query,
        objective: this.plan.objective,
        questions: this.questions,
        now: Date.now(),
        sources,
      }),
    );
    if (!report) throw new ResearchFailure('research_failed', 'the model wrote an empty answer');
    this.emit('writing:end', { message: 'Answer written', attempt: 1 });
    this.addPhase('writing', writing);
    this.complete(
      report,
      sources.map(({ id, url, title }) => ({ id, url, title })),
    );
  }

  /**
   * Reads the pages, a few at a time, and keeps the passages of each that bear most on the
   * research: what `fast` writes from instead of a model's analysis of every page.
   */
  private async readExcerpts(iteration: number, targets: PageTarget[]): Promise<SourceExcerpts[]> {
    for (const target of targets) this.seen.add(pageKey(target.url));
    const pages = await mapBounded(targets, this.input.pageConcurrency, async (target) => {
      const reading = target.reading ?? (await this.fetch(target.url));
      return reading && { target, reading, title: reading.metadata.title || target.title || target.url };
    });
    const read = pages.filter((page) => page !== undefined);
    const excerpts = rankedExcerpts(
      read.map((page, index) => ({ id: index, content: page.reading.content })),
      [this.input.request.query, ...this.questions, ...this.plan.queries].join('\n'),
      FAST_EXCERPTS,
    );
    const sources: SourceExcerpts[] = [];
    read.forEach((page, index) => {
      const passages = excerpts.get(index);
      if (!passages) return;
      const analyzed: AnalyzedPage = {
        ...page.target,
        reading: undefined,
        id: this.analyzed.length + 1,
        title: page.title,
        iteration,
        // Not assessed: no model reads a page in `fast`; the lead passage stands for its summary.
        analysis: {
          relevance: 'medium',
          reliability: 'medium',
          summary: passages[0]!.slice(0, SUMMARY_CHARS),
          keyFacts: [],
          promisingLinks: [],
        },
      };
      this.analyzed.push(analyzed);
      sources.push({ id: analyzed.id, url: analyzed.url, title: analyzed.title, excerpts: passages });
    });
    return sources;
  }

  /** Runs one phase between its start and end events (which `work` emits), timing it. */
  private async runPhase<T>(phase: ResearchPhase, work: () => Promise<T>): Promise<T> {
    this.phase = phase;
    const started = Date.now();
    const result = await work();
    this.addPhase(phase, started);
    return result;
  }

  private addPhase(name: string, started: number): void {
    const entry = (this.metrics.phases[name] ??= { duration: 0 });
    entry.duration += Date.now() - started;
  }

  private count<T>(reply: ResearchReply<T>): T {
    const tokens = (this.metrics.tokens[reply.model] ??= { input: 0, output: 0 });
    tokens.input += reply.usage.prompt;
    tokens.output += reply.usage.completion;
    addUsage(this.usage, reply.usage);
    return reply.value;
  }

  /** A model step the run cannot do without: its failure fails the research. */
  private async required<T>(step: () => Promise<ResearchReply<T>>): Promise<T> {
    try {
      return this.count(await step());
    } catch (err) {
      if (isCancellation(err)) throw err;
      throw new ResearchFailure('research_failed', failureText(err));
    }
  }

  private async prefetch(): Promise<PageTarget[]> {
    const urls = urlsInQuery(this.input.request.query);
    if (urls.length === 0) return [];
    this.emit('prefetching:start', {
      message: `Reading ${urls.length} page(s) named in the query`,
      urls,
      urlCount: urls.length,
    });
    const allowed = new Set((await this.allowedByRobots(urls.map((url) => ({ url })))).map((target) => target.url));
    const pages = await mapBounded(urls, this.input.pageConcurrency, async (url): Promise<PageTarget | undefined> => {
      if (!allowed.has(url) || this.seen.has(pageKey(url))) return undefined;
      this.seen.add(pageKey(url));
      const reading = await this.fetch(url);
      return (
        reading && { url, urlSource: 'user-input', title: reading.metadata.title, sourceQueries: [], depth: 0, reading }
      );
    });
    const fetched = pages.filter((page): page is PageTarget => page !== undefined);
    this.emit('prefetching:end', {
      message: `Read ${fetched.length} of ${urls.length} page(s)`,
      fetched: fetched.length,
      failed: urls.length - fetched.length,
    });
    return fetched;
  }

  private async planResearch(prefetched: PageTarget[]): Promise<Plan> {
    this.emit('planning:start', { message: 'Planning the research', hasPrefetchedContext: prefetched.length > 0 });
    const plan = await this.required(() =>
      this.model.planResearch({
        query: this.input.request.query,
        mode: this.input.request.mode,
        now: Date.now(),
        maxQueries: this.budget.queries,
        prefetched: prefetched.map((page) => ({
          url: page.url,
          title: page.title ?? '',
          content: page.reading!.content.slice(0, 6_000),
        })),
      }),
    );
    this.emit('planning:end', {
      message: `Planned ${plan.questions.length} question(s) and ${plan.queries.length} search(es)`,
      objective: plan.objective,
      plan: plan.plan,
      questions: plan.questions,
      queries: plan.queries,
      complexity: plan.complexity,
    });
    return plan;
  }

  private async searchFor(iteration: number, queries: string[]): Promise<PageTarget[]> {
    this.emit('searching:start', {
      message: `Searching the web for ${queries.length} quer${queries.length === 1 ? 'y' : 'ies'}`,
      iteration,
      queries,
    });
    this.executedQueries.push(queries);
    const answers = await Promise.all(
      queries.map(async (query): Promise<SearchWebResult | undefined> => {
        this.metrics.searchesRun++;
        try {
          const answer = await this.search.searchWeb({ query, count: this.budget.resultsPerQuery });
          this.metrics.searchesOk++;
          this.metrics.searches[answer.engine] = (this.metrics.searches[answer.engine] ?? 0) + 1;
          return answer;
        } catch (err) {
          if (isCancellation(err)) throw err;
          workflowLog.warn('search failed', { iteration, error: failureText(err) });
          return undefined;
        }
      }),
    );
    if (answers.every((answer) => answer === undefined))
      throw new ResearchFailure('search_failed', `every search of round ${iteration} failed`);
    const byUrl = new Map<string, PageTarget>();
    let urlsFound = 0;
    // Interleaved, so each query's best results come before any query's second best.
    const depth = Math.max(0, ...answers.map((answer) => answer?.hits.length ?? 0));
    for (let rank = 0; rank < depth; rank++) {
      answers.forEach((answer, index) => {
        const hit = answer?.hits[rank];
        if (!hit) return;
        urlsFound++;
        const key = pageKey(hit.url);
        const known = byUrl.get(key);
        if (known) known.sourceQueries.push(queries[index]!);
        else if (!this.seen.has(key))
          byUrl.set(key, {
            url: hit.url,
            urlSource: 'search-result',
            title: hit.title,
            sourceQueries: [queries[index]!],
            depth: 0,
          });
      });
    }
    const found = [...byUrl.values()];
    this.emit('searching:end', {
      message: `Found ${found.length} new page(s)`,
      iteration,
      urlsFound,
      urlsNew: found.length,
    });
    return found;
  }

  /**
   * The targets robots.txt lets research fetch, in order; the others are counted and never asked
   * for again. Pages already read are not checked again.
   */
  private async allowedByRobots<T extends { url: string; reading?: ResearchReading }>(targets: T[]): Promise<T[]> {
    const asking = targets.filter((target) => !target.reading);
    if (asking.length === 0) return targets;
    const { blocked } = await this.robots.checkRobots({ urls: asking.map((target) => target.url) });
    if (blocked.length === 0) return targets;
    const refused = new Set(blocked);
    for (const url of refused) this.seen.add(pageKey(url));
    this.metrics.robotsBlocked += refused.size;
    return targets.filter((target) => target.reading || !refused.has(target.url));
  }

  /** Fetches a page through the extraction pipeline; undefined when it cannot be read. */
  private async fetch(url: string): Promise<ResearchReading | undefined> {
    this.metrics.fetches++;
    const cache: PageCacheUse = { partition: this.input.cachePartition, lookup: !this.input.request.nocache };
    try {
      const page = await obtainPageFacts(
        { url, effort: 'standard' },
        this.input.queues,
        { as: 'research', tokens: this.input.pageTokens },
        {
          timeoutMs: this.input.request.fetchTimeoutMs,
          cache,
          activityTimeouts: this.input.timeouts,
        },
      );
      if (page.cached) this.metrics.cachedFetches++;
      this.metrics.fetchesOk++;
      return page.reading.content.trim() ? page.reading : undefined;
    } catch (err) {
      if (isCancellation(err)) throw err;
      workflowLog.info('page not read', { error: failureText(err) });
      return undefined;
    }
  }

  /** Reads and analyzes the pages, a few at a time; each page's fetch and analysis are activities of their own. */
  private async readPages(iteration: number, targets: PageTarget[]): Promise<AnalyzedPage[]> {
    for (const target of targets) this.seen.add(pageKey(target.url));
    const pages = await mapBounded(targets, this.input.pageConcurrency, async (target) => {
      const reading = target.reading ?? (await this.fetch(target.url));
      if (!reading) return undefined;
      const title = reading.metadata.title || target.title || target.url;
      this.metrics.analyzes++;
      let analysis: PageAnalysis;
      try {
        analysis = this.count(
          await this.model.analyzePage({
            query: this.input.request.query,
            objective: this.plan.objective,
            questions: this.questions,
            now: Date.now(),
            page: {
              url: target.url,
              title,
              content: reading.content,
              links: this.budget.linksPerPage > 0 ? reading.links : [],
            },
            maxLinks: this.budget.linksPerPage,
          }),
        );
      } catch (err) {
        if (isCancellation(err)) throw err;
        workflowLog.warn('page analysis failed', { error: failureText(err) });
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

  private async analyzeAll(iteration: number, prefetched: PageTarget[], found: PageTarget[]): Promise<AnalyzedPage[]> {
    const blockedBefore = this.metrics.robotsBlocked;
    const allowed = await this.allowedByRobots(found);
    const targets = [...prefetched, ...allowed.slice(0, this.budget.pagesPerIteration)];
    const blocked = this.metrics.robotsBlocked - blockedBefore;
    this.emit('analyzing:start', {
      message: `Reading ${targets.length} page(s)${blocked > 0 ? `; robots.txt keeps research from ${blocked}` : ''}`,
      iteration,
      pageCount: targets.length,
    });
    const read = await this.readPages(iteration, targets);
    this.emit('analyzing:end', {
      message: `Analyzed ${read.length} of ${targets.length} page(s)`,
      iteration,
      analyzed: read.length,
      failed: targets.length - read.length,
      samples: read.map(sampleOf),
    });
    return read;
  }

  /** The links the analyses proposed most, from the most relevant pages first, not read yet. */
  private async follow(iteration: number, read: AnalyzedPage[]): Promise<void> {
    const votes = new Map<string, { target: PageTarget; votes: number; rank: number }>();
    for (const page of [...read].sort(
      (a, b) => RATING_ORDER[a.analysis.relevance] - RATING_ORDER[b.analysis.relevance],
    )) {
      if (page.analysis.relevance === 'low') continue;
      for (const url of page.analysis.promisingLinks) {
        const key = pageKey(url);
        if (this.seen.has(key)) continue;
        const known = votes.get(key);
        if (known) known.votes++;
        else {
          votes.set(key, {
            target: {
              url,
              urlSource: 'extracted-link',
              sourceQueries: page.sourceQueries,
              depth: page.depth + 1,
              parentUrl: page.url,
            },
            votes: 1,
            rank: votes.size,
          });
        }
      }
    }
    const candidates = [...votes.values()]
      .sort((a, b) => b.votes - a.votes || a.rank - b.rank)
      .map((entry) => entry.target);
    const targets = (await this.allowedByRobots(candidates)).slice(0, this.budget.follow);
    this.emit('following:start', {
      message: `Following ${targets.length} link(s)`,
      iteration,
      linkCount: targets.length,
    });
    const followed = await this.readPages(iteration, targets);
    this.emit('following:end', {
      message: `Followed ${followed.length} of ${targets.length} link(s)`,
      iteration,
      followed: followed.length,
      failed: targets.length - followed.length,
      samples: followed.map(sampleOf),
    });
  }

  private notes(pages: AnalyzedPage[]): SourceNote[] {
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

  /** The pages worth writing from, best first, within the mode's budget. */
  private bestPages(): AnalyzedPage[] {
    const score = (page: AnalyzedPage) =>
      RATING_ORDER[page.analysis.relevance] * 3 + RATING_ORDER[page.analysis.reliability];
    return [...this.analyzed]
      .filter((page) => page.analysis.relevance !== 'low')
      .sort((a, b) => score(a) - score(b) || a.id - b.id)
      .slice(0, this.budget.maxSources);
  }

  private async evaluate(iteration: number): Promise<{ evaluation: Evaluation; stopReason?: StopReason }> {
    this.emit('evaluating:start', {
      message: `Assessing coverage of ${this.questions.length} question(s)`,
      iteration,
      pagesAnalyzed: this.analyzed.length,
      questionCount: this.questions.length,
    });
    const evaluation = await this.required(() =>
      this.model.evaluateCoverage({
        query: this.input.request.query,
        objective: this.plan.objective,
        questions: this.questions,
        now: Date.now(),
        mode: this.input.request.mode,
        iteration,
        maxIterations: this.budget.maxIterations,
        executedQueries: this.executedQueries.flat(),
        notes: this.notes(this.bestPages()),
        maxQueries: this.budget.queries,
      }),
    );
    const stopReason = stopReasonAfter(iteration, this.budget.maxIterations, evaluation);
    const nextQueries = stopReason ? [] : evaluation.nextQueries;
    this.evaluations.push({
      researchCoverage: evaluation.coverage,
      gapDescription: evaluation.gaps,
      questionAssessments: evaluation.assessments,
      shouldContinueResearch: evaluation.shouldContinue,
      newResearchQuestions: evaluation.newQuestions,
      searchQueries: nextQueries,
    });
    this.emit('evaluating:end', {
      message: `Coverage: ${evaluation.coverage}`,
      iteration,
      coverage: evaluation.coverage,
      gaps: evaluation.gaps,
      shouldContinue: evaluation.shouldContinue,
      questionAssessments: evaluation.assessments,
      nextQueries,
    });
    return { evaluation: { ...evaluation, nextQueries }, stopReason };
  }

  private async outline(): Promise<{ outline: Outline; notes: SourceNote[] }> {
    const quality = this.analyzed.filter(
      (page) => page.analysis.relevance !== 'low' && page.analysis.reliability !== 'low',
    );
    this.emit('outlining:start', {
      message: 'Outlining the report',
      pagesAnalyzed: this.analyzed.length,
      qualityPageCount: quality.length,
    });
    const best = this.bestPages();
    // Nothing rated useful: the writer still gets what there is rather than nothing.
    const candidates = this.notes(best.length > 0 ? best : this.analyzed.slice(0, this.budget.maxSources));
    const outline = await this.required(() =>
      this.model.outlineReport({
        query: this.input.request.query,
        objective: this.plan.objective,
        questions: this.questions,
        now: Date.now(),
        notes: candidates,
      }),
    );
    const chosen = new Set(outline.sourceIds);
    const notes = chosen.size > 0 ? candidates.filter((note) => chosen.has(note.id)) : candidates;
    this.emit('outlining:end', { message: `Selected ${notes.length} source(s)`, sourcesSelected: notes.length });
    return { outline, notes };
  }

  /** Drafts the report and has it reviewed; a draft sent back is revised once. */
  private async writeAndJudge(outline: Outline, notes: SourceNote[]): Promise<string> {
    const maxAttempts = this.budget.maxDrafts;
    let report = '';
    let revision: { report: string; feedback: string } | undefined;
    let previousScore: number | undefined;
    for (let attempt = 1; attempt <= maxAttempts; attempt++) {
      this.phase = 'writing';
      let started = Date.now();
      this.emit('writing:start', {
        message: revision ? 'Revising the report' : 'Writing the report',
        attempt,
        maxAttempts,
        isRevision: revision !== undefined,
        ...(previousScore !== undefined ? { previousScore } : {}),
      });
      const draft = await this.required(() =>
        this.model.writeReport({
          query: this.input.request.query,
          objective: this.plan.objective,
          questions: this.questions,
          now: Date.now(),
          mode: this.input.request.mode,
          outline,
          notes,
          revision,
        }),
      );
      if (!draft.report) throw new ResearchFailure('research_failed', 'the model wrote an empty report');
      report = draft.report;
      this.emit('writing:end', { message: `Draft ${attempt} written`, attempt });
      this.addPhase('writing', started);
      this.phase = 'judging';
      started = Date.now();
      this.emit('judging:start', { message: 'Reviewing the report', attempt, maxAttempts });
      const verdict = await this.required(() =>
        this.model.judgeReport({
          query: this.input.request.query,
          questions: this.questions,
          now: Date.now(),
          report,
          notes,
        }),
      );
      this.judgments.push({
        approved: verdict.approved,
        score: verdict.score,
        observation: verdict.observation,
        ...(verdict.feedback ? { feedback: verdict.feedback } : {}),
      });
      this.emit('judging:end', {
        message: verdict.approved ? `Approved (score ${verdict.score})` : `Sent back (score ${verdict.score})`,
        attempt,
        approved: verdict.approved,
        score: verdict.score,
        ...(verdict.feedback ? { feedback: verdict.feedback } : {}),
      });
      this.addPhase('judging', started);
      if (verdict.approved) break;
      revision = { report, feedback: verdict.feedback || verdict.observation };
      previousScore = verdict.score;
    }
    return report;
  }

  private complete(draft: string, sources: CitableSource[], outline?: Outline): void {
    this.phase = undefined;
    const pages = new Map(this.analyzed.map((page) => [page.id, page]));
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
    const rate = (ok: number, all: number) => (all === 0 ? 1 : Math.round((ok / all) * 1000) / 1000);
    const metrics: ResearchMetrics = {
      iterations: this.executedQueries.length,
      fetches: this.metrics.fetches,
      cachedFetches: this.metrics.cachedFetches,
      robotsBlocked: this.metrics.robotsBlocked,
      searches: this.metrics.searches,
      cachedSearches: {},
      successRates: {
        fetches: rate(this.metrics.fetchesOk, this.metrics.fetches),
        searches: rate(this.metrics.searchesOk, this.metrics.searchesRun),
        analyzes: rate(this.metrics.analyzesOk, this.metrics.analyzes),
      },
      phases: this.metrics.phases,
      tokens: this.metrics.tokens,
      totalDuration: Date.now() - this.startedAt,
    };
    const metadata: ResearchMetadata = {
      prompt: this.input.request.query,
      mode: this.input.request.mode,
      queryComplexity: this.plan.complexity,
      researchObjective: this.plan.objective,
      researchPlan: this.plan.plan,
      researchQuestions: this.questions,
      executedQueries: this.executedQueries,
      totalPagesAnalyzed: this.analyzed.length,
      citedPages,
      gapEvaluations: this.evaluations,
      judgments: this.judgments,
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
        userProvided: this.analyzed.filter((page) => page.urlSource === 'user-input').length,
        searchResults: this.analyzed.filter((page) => page.urlSource === 'search-result').length,
        extractedLinks: this.analyzed.filter((page) => page.urlSource === 'extracted-link').length,
      },
    };
    upsertMemo({ usage: this.usage });
    this.emit('complete', {
      message: `Research complete: ${citedPages.length} source(s) cited`,
      report: final.report,
      metadata,
    });
  }
}

function sampleOf(page: AnalyzedPage): PageSample {
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

/** `work` over the items, at most `limit` at once, results in the items' order. Deterministic in a workflow. */
async function mapBounded<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}
