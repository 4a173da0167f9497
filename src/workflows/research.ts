import { ApplicationFailure, isCancellation, log as workflowLog, patched, upsertMemo } from '@temporalio/workflow';
import { ERRORS, type ErrorCode } from '../errors';
import type { ResearchInput } from '../operations/research';
import { EventLog } from '../events/eventLog';
import type { GapEvaluation, Judgment, ResearchEvents, ResearchPayloads, ResearchPhase } from '../events/research';
import { researchStream } from '../events/streams';
import { failureText } from '../temporal/failureText';
import type { Evaluation, Outline, Plan, SourceNote } from '../prompts/research.v1';
import type { CitableSource } from '../research/citations';
import {
  analyzedData,
  coverageData,
  draftData,
  failureData,
  fastRoundEndData,
  followedData,
  foundData,
  iterationData,
  plannedData,
  planningData,
  roundEndData,
  searchingData,
  startData,
  verdictData,
  writingData,
} from '../research/eventData';
import { MODE_BUDGETS, type ModeBudget } from '../research/modes';
import type { PageAnalyst, PageReader } from '../research/pageReader';
import { notesOf, type AnalyzedPage, type PageTarget } from '../research/pages';
import { urlsInQuery } from '../research/queryUrls';
import { bestPages, linksToFollow, qualityPages, searchTargets } from '../research/ranking';
import { assembleReport, gapEvaluation, judgmentOf } from '../research/report';
import { ResearchFailure } from '../research/researchFailure';
import { RunMetrics } from '../research/runMetrics';
import { searchAll } from '../research/searching';
import { stopReasonAfter, type StopReason } from '../research/stopRule';
import { recordingOutcome } from './outcome';
import { ResearchTools, type About } from './researchTools';

/**
 * `fast` runs the hosted service's shape: plan, one round of searching and reading, one writing
 * call. Runs started before it took the analyzing, evaluating, outlining and judging path;
 * `patched` sends their replays down it again.
 */
export const FAST_SHAPE_PATCH = 'research-fast-shape';

/**
 * A run none of whose pages the model could analyze stops with `research_failed` at the end of
 * that round. Runs started before went on searching and reading for every round the mode allows,
 * each analysis failing through its retries, to `no_sources`.
 */
export const ANALYSIS_OUTAGE_PATCH = 'research-analysis-outage';

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
  const log = new EventLog<ResearchEvents>(researchStream);
  await recordingOutcome(() => log.run(() => new ResearchRun(input, log).run()));
}

class ResearchRun {
  private readonly budget: ModeBudget;
  private readonly startedAt = Date.now();
  private phase?: ResearchPhase;
  private iteration?: number;

  private plan!: Plan;
  private questions: string[] = [];
  private readonly executedQueries: string[][] = [];
  private readonly evaluations: GapEvaluation[] = [];
  private readonly judgments: Judgment[] = [];
  private readonly metrics = new RunMetrics();
  private readonly tools: ResearchTools;
  private readonly pages: PageReader;
  private readonly analyzePage: PageAnalyst;

  constructor(
    private readonly input: ResearchInput,
    private readonly log: EventLog<ResearchEvents>,
  ) {
    this.budget = MODE_BUDGETS[input.request.mode];
    this.tools = new ResearchTools(input, this.metrics);
    this.pages = this.tools.pages;
    this.analyzePage = this.tools.analyst(() => this.about(), this.budget);
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
      workflowLog.warn('research failed', {
        code,
        step: this.phase,
        iteration: this.iteration,
        error: failureText(err),
      });
      this.emit('error', failureData(code, this.phase, this.iteration));
      upsertMemo({ usage: this.metrics.usage });
      throw ApplicationFailure.nonRetryable(`${ERRORS[code].message}: ${failureText(err)}`, code);
    }
  }

  private async research(): Promise<void> {
    const { query, mode } = this.input.request;
    this.emit('start', startData());
    const fastShape = mode === 'fast' && patched(FAST_SHAPE_PATCH);
    const prefetched = await this.runPhase('prefetching', () => this.prefetch());
    this.plan = await this.runPhase('planning', () => this.planResearch(prefetched));
    this.questions = this.plan.questions.length > 0 ? this.plan.questions : [query];
    let queries = this.plan.queries.length > 0 ? this.plan.queries : [query];
    if (fastShape) return this.answerFast(prefetched, queries);
    for (let iteration = 1; iteration <= this.budget.maxIterations; iteration++) {
      const next = await this.round(iteration, queries, iteration === 1 ? prefetched : []);
      if (!next) break;
      queries = next;
    }
    this.iteration = undefined;
    if (this.pages.analyzed.length === 0)
      throw new ResearchFailure('no_sources', 'no page could be fetched and analyzed');
    const { outline, notes } = await this.runPhase('outlining', () => this.outline());
    const report = await this.writeAndJudge(outline, notes);
    this.complete(report, notes, outline);
  }

  /**
   * One round of `balanced`: search, read and analyze what was found, follow the best links,
   * weigh coverage. Returns the next round's queries, or nothing when research stops here.
   */
  private async round(iteration: number, queries: string[], prefetched: PageTarget[]): Promise<string[] | undefined> {
    this.iteration = iteration;
    this.phase = 'iteration';
    const started = Date.now();
    this.emit('iteration:start', iterationData(iteration, this.budget.maxIterations, queries));
    const found = await this.runPhase('searching', () => this.searchFor(iteration, queries));
    const analyzesBefore = this.metrics.analyzes;
    const read = await this.runPhase('analyzing', () => this.analyzeAll(iteration, prefetched, found));
    const tried = this.metrics.analyzes - analyzesBefore;
    // Pages were read and the model analyzed none, in this run: it is failing (down, timing out,
    // answering garbage), and every further round would spend each analysis's retries the same way.
    if (tried > 0 && this.pages.analyzed.length === 0 && patched(ANALYSIS_OUTAGE_PATCH))
      throw new ResearchFailure('research_failed', `the model analyzed none of the ${tried} page(s) read`);
    if (this.budget.follow > 0) await this.runPhase('following', () => this.follow(iteration, read));
    const { evaluation, stopReason } = await this.runPhase('evaluating', () => this.evaluate(iteration));
    this.metrics.addPhase('iteration', Date.now() - started);
    this.phase = 'iteration';
    this.emit('iteration:end', roundEndData(iteration, evaluation, stopReason));
    if (stopReason) return undefined;
    this.questions = [...this.questions, ...evaluation.newQuestions];
    return evaluation.nextQueries;
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
    this.emit('iteration:start', iterationData(iteration, 1, queries));
    const sources = await this.runPhase('searching', async () => {
      const found = await this.searchFor(iteration, queries);
      const allowed = await this.pages.allowedByRobots(found);
      const targets = [...prefetched, ...allowed.slice(0, this.budget.pagesPerIteration)];
      return this.pages.excerpts(
        iteration,
        targets,
        [this.input.request.query, ...this.questions, ...this.plan.queries].join('\n'),
      );
    });
    this.metrics.addPhase('iteration', Date.now() - started);
    this.phase = 'iteration';
    this.emit('iteration:end', fastRoundEndData(iteration));
    this.iteration = undefined;
    if (sources.length === 0) throw new ResearchFailure('no_sources', 'no page could be fetched and read');
    this.phase = 'writing';
    const writing = Date.now();
    this.emit('writing:start', writingData(1, 1));
    const { report } = await this.tools.required(() => this.tools.model.writeAnswer({ ...this.about(), sources }));
    if (!report) throw new ResearchFailure('research_failed', 'the model wrote an empty answer');
    this.emit('writing:end', draftData(1));
    this.metrics.addPhase('writing', Date.now() - writing);
    this.complete(
      report,
      sources.map(({ id, url, title }) => ({ id, url, title })),
    );
  }

  /** Runs one phase between its start and end events (which `work` emits), timing it. */
  private async runPhase<T>(phase: ResearchPhase, work: () => Promise<T>): Promise<T> {
    this.phase = phase;
    const started = Date.now();
    const result = await work();
    this.metrics.addPhase(phase, Date.now() - started);
    return result;
  }

  /** What the model steps that read, weigh and write are told of the research. */
  private about(): About {
    return {
      query: this.input.request.query,
      objective: this.plan.objective,
      questions: this.questions,
      now: Date.now(),
    };
  }

  private async prefetch(): Promise<PageTarget[]> {
    const urls = urlsInQuery(this.input.request.query);
    if (urls.length === 0) return [];
    this.emit('prefetching:start', {
      message: `Reading ${urls.length} page(s) named in the query`,
      urls,
      urlCount: urls.length,
    });
    const fetched = await this.pages.prefetch(urls);
    this.emit('prefetching:end', {
      message: `Read ${fetched.length} of ${urls.length} page(s)`,
      fetched: fetched.length,
      failed: urls.length - fetched.length,
    });
    return fetched;
  }

  private async planResearch(prefetched: PageTarget[]): Promise<Plan> {
    this.emit('planning:start', planningData(prefetched.length > 0));
    const plan = await this.tools.required(() =>
      this.tools.model.planResearch({
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
    this.emit('planning:end', plannedData(plan));
    return plan;
  }

  private async searchFor(iteration: number, queries: string[]): Promise<PageTarget[]> {
    this.emit('searching:start', searchingData(iteration, queries));
    this.executedQueries.push(queries);
    const answers = await searchAll(
      queries,
      (query) => this.tools.search.searchWeb({ query, count: this.budget.resultsPerQuery }),
      this.metrics,
      (err) => workflowLog.warn('search failed', { iteration, error: failureText(err) }),
    );
    if (answers.every((answer) => answer === undefined))
      throw new ResearchFailure('search_failed', `every search of round ${iteration} failed`);
    const { found, urlsFound } = searchTargets(queries, answers, this.pages.seen);
    this.emit('searching:end', foundData(iteration, urlsFound, found.length));
    return found;
  }

  private async analyzeAll(iteration: number, prefetched: PageTarget[], found: PageTarget[]): Promise<AnalyzedPage[]> {
    const blockedBefore = this.metrics.robotsBlocked;
    const allowed = await this.pages.allowedByRobots(found);
    const targets = [...prefetched, ...allowed.slice(0, this.budget.pagesPerIteration)];
    const blocked = this.metrics.robotsBlocked - blockedBefore;
    this.emit('analyzing:start', {
      message: `Reading ${targets.length} page(s)${blocked > 0 ? `; robots.txt keeps research from ${blocked}` : ''}`,
      iteration,
      pageCount: targets.length,
    });
    const read = await this.pages.analyze(iteration, targets, this.analyzePage);
    this.emit('analyzing:end', analyzedData(iteration, read, targets.length));
    return read;
  }

  /** Reads the links the analyses proposed most (see linksToFollow), within the mode's budget. */
  private async follow(iteration: number, read: AnalyzedPage[]): Promise<void> {
    const targets = (await this.pages.allowedByRobots(linksToFollow(read, this.pages.seen))).slice(
      0,
      this.budget.follow,
    );
    this.emit('following:start', {
      message: `Following ${targets.length} link(s)`,
      iteration,
      linkCount: targets.length,
    });
    const followed = await this.pages.analyze(iteration, targets, this.analyzePage);
    this.emit('following:end', followedData(iteration, followed, targets.length));
  }

  private async evaluate(iteration: number): Promise<{ evaluation: Evaluation; stopReason?: StopReason }> {
    this.emit('evaluating:start', {
      message: `Assessing coverage of ${this.questions.length} question(s)`,
      iteration,
      pagesAnalyzed: this.pages.analyzed.length,
      questionCount: this.questions.length,
    });
    const evaluation = await this.tools.required(() =>
      this.tools.model.evaluateCoverage({
        ...this.about(),
        mode: this.input.request.mode,
        iteration,
        maxIterations: this.budget.maxIterations,
        executedQueries: this.executedQueries.flat(),
        notes: notesOf(bestPages(this.pages.analyzed, this.budget.maxSources)),
        maxQueries: this.budget.queries,
      }),
    );
    const stopReason = stopReasonAfter(iteration, this.budget.maxIterations, evaluation);
    const nextQueries = stopReason ? [] : evaluation.nextQueries;
    this.evaluations.push(gapEvaluation(evaluation, nextQueries));
    this.emit('evaluating:end', coverageData(iteration, evaluation, nextQueries));
    return { evaluation: { ...evaluation, nextQueries }, stopReason };
  }

  private async outline(): Promise<{ outline: Outline; notes: SourceNote[] }> {
    this.emit('outlining:start', {
      message: 'Outlining the report',
      pagesAnalyzed: this.pages.analyzed.length,
      qualityPageCount: qualityPages(this.pages.analyzed).length,
    });
    const best = bestPages(this.pages.analyzed, this.budget.maxSources);
    // Nothing rated useful: the writer still gets what there is rather than nothing.
    const candidates = notesOf(best.length > 0 ? best : this.pages.analyzed.slice(0, this.budget.maxSources));
    const outline = await this.tools.required(() =>
      this.tools.model.outlineReport({ ...this.about(), notes: candidates }),
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
      this.emit('writing:start', writingData(attempt, maxAttempts, previousScore));
      const draft = await this.tools.required(() =>
        this.tools.model.writeReport({ ...this.about(), mode: this.input.request.mode, outline, notes, revision }),
      );
      if (!draft.report) throw new ResearchFailure('research_failed', 'the model wrote an empty report');
      report = draft.report;
      this.emit('writing:end', draftData(attempt));
      this.metrics.addPhase('writing', Date.now() - started);
      this.phase = 'judging';
      started = Date.now();
      this.emit('judging:start', { message: 'Reviewing the report', attempt, maxAttempts });
      const verdict = await this.tools.required(() =>
        this.tools.model.judgeReport({
          query: this.input.request.query,
          questions: this.questions,
          now: Date.now(),
          report,
          notes,
        }),
      );
      this.judgments.push(judgmentOf(verdict));
      this.emit('judging:end', verdictData(attempt, verdict));
      this.metrics.addPhase('judging', Date.now() - started);
      if (verdict.approved) break;
      revision = { report, feedback: verdict.feedback || verdict.observation };
      previousScore = verdict.score;
    }
    return report;
  }

  /** Completes the run with the report, the pages it cites and the run's metadata. */
  private complete(draft: string, sources: CitableSource[], outline?: Outline): void {
    this.phase = undefined;
    const { query, mode } = this.input.request;
    const { report, metadata } = assembleReport(
      draft,
      sources,
      {
        query,
        mode,
        plan: this.plan,
        questions: this.questions,
        executedQueries: this.executedQueries,
        analyzed: this.pages.analyzed,
        evaluations: this.evaluations,
        judgments: this.judgments,
      },
      this.metrics.summary(this.executedQueries.length, Date.now() - this.startedAt),
      outline,
    );
    upsertMemo({ usage: this.metrics.usage });
    this.emit('complete', {
      message: 'Research complete',
      report,
      metadata,
    });
  }
}
