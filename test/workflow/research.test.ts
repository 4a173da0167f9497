import { ApplicationFailure } from '@temporalio/common';
import type { ResearchReply } from '../../src/activities/researchModel';
import type { ResearchReading } from '../../src/reading/researchReading';
import type { SearchWebInput, SearchWebResult } from '../../src/activities/searchWeb';
import { listEventsQuery, readEventsUpdate, releaseReaderSignal, type RecordedEvent } from '../../src/events/messages';
import type { ResearchEvents, ResearchMode } from '../../src/events/research';
import type {
  AnalyzeInput,
  AnswerInput,
  EvaluateInput,
  Evaluation,
  JudgeInput,
  Outline,
  PageAnalysis,
  Plan,
  Verdict,
  WriteInput,
} from '../../src/prompts/research.v1';
import type { ObtainedPage } from '../../src/types';
import type { ResearchInput } from '../../src/workflows';
import { failureOf, finished, startWorkflowTier, type WorkflowTier } from '../support/workflowEnvironment';
import { FAST_EVENTS } from '../support/researchScript';

/**
 * The research process on Temporal's time-skipping test server, every activity a test double:
 * when iterating stops in each mode and why, the reviewer's one revision, the report citing only
 * pages read, the error event, and the cancel after the disconnect grace period.
 */

const TASK_QUEUE = 'research';

interface Doubles {
  evaluations: Partial<Evaluation>[];
  verdicts: Verdict[];
  failSearch: boolean;
  /** planResearch fails this way (once). */
  planFailure?: ApplicationFailure;
  /** Whether analyzePage fails, every time, for a page (as a model that is down does). */
  analysisFails?: (url: string) => boolean;
  searched: SearchWebInput[];
  robotsAsked: string[];
  fetched: string[];
  analyzed: AnalyzeInput[];
  evaluated: EvaluateInput[];
  written: WriteInput[];
  answered: AnswerInput[];
  judged: JudgeInput[];
  /** Each page's text, by URL; a page absent here says one line. */
  pageText: Record<string, string>;
}

let doubles: Doubles;
let tier: WorkflowTier;

const usage = { prompt: 100, completion: 20, total: 120 };
const reply = <T>(value: T): ResearchReply<T> => ({
  value,
  usage,
  model: 'double-model',
  promptVersion: 'research/v1',
});
const slug = (text: string) => text.toLowerCase().replace(/[^a-z0-9]+/g, '-');

const activities = {
  async searchWeb(input: SearchWebInput): Promise<SearchWebResult> {
    doubles.searched.push(input);
    if (doubles.failSearch) throw ApplicationFailure.nonRetryable('HTTP 401', 'search_failed');
    const hits = Array.from({ length: input.count }, (_, i) => ({
      url: `https://site.example/${slug(input.query)}/${i}`,
      title: `${input.query} ${i}`,
      snippet: '',
    }));
    // Each query's best hit is one robots.txt disallows.
    hits.unshift({ url: `https://site.example/private/${slug(input.query)}`, title: 'Private', snippet: '' });
    return { engine: 'double', hits };
  },
  async checkRobots(input: { urls: string[] }): Promise<{ allowed: string[]; blocked: string[] }> {
    doubles.robotsAsked.push(...input.urls);
    return {
      allowed: input.urls.filter((url) => !url.includes('/private/')),
      blocked: input.urls.filter((url) => url.includes('/private/')),
    };
  },
  async fetchPage(input: { url: string }): Promise<ObtainedPage<ResearchReading>> {
    doubles.fetched.push(input.url);
    const reading: ResearchReading = {
      content: doubles.pageText[input.url] ?? `What ${input.url} says.`,
      metadata: { title: `Page ${input.url}` },
      links: [{ url: `${input.url}/deeper`, text: 'deeper' }],
    };
    return {
      requestedUrl: input.url,
      finalUrl: input.url,
      status: 200,
      contentType: 'text/html',
      bytes: 100,
      obtainMs: 1,
      needsBrowser: false,
      reading,
    };
  },
  async planResearch(): Promise<ResearchReply<Plan>> {
    const failure = doubles.planFailure;
    doubles.planFailure = undefined;
    if (failure) throw failure;
    return reply({
      objective: 'Know the harbour',
      plan: 'Read widely',
      complexity: 'moderate',
      questions: ['Who built it?', 'When?'],
      queries: ['harbour builder', 'harbour year'],
    });
  },
  async analyzePage(input: AnalyzeInput): Promise<ResearchReply<PageAnalysis>> {
    doubles.analyzed.push(input);
    if (doubles.analysisFails?.(input.page.url))
      throw ApplicationFailure.nonRetryable('model answered HTTP 500', 'model_failed');
    return reply({
      relevance: 'high',
      reliability: 'medium',
      summary: `Summary of ${input.page.url}`,
      keyFacts: ['A fact.'],
      promisingLinks: input.page.links.map((l) => l.url),
    });
  },
  async evaluateCoverage(input: EvaluateInput): Promise<ResearchReply<Evaluation>> {
    doubles.evaluated.push(input);
    const scripted = doubles.evaluations.shift() ?? {};
    return reply({
      coverage: 'Moderate',
      assessments: [{ question: 'Who built it?', status: 'partial', findings: 'Some' }],
      gaps: 'The year',
      shouldContinue: true,
      nextQueries: [`next query ${input.iteration}`],
      newQuestions: [],
      ...scripted,
    });
  },
  async outlineReport(): Promise<ResearchReply<Outline>> {
    return reply({
      directAnswer: 'It was built long ago.',
      keyTakeaways: ['Old'],
      outline: '- History',
      sourceIds: [],
    });
  },
  async writeReport(input: WriteInput): Promise<ResearchReply<{ report: string }>> {
    doubles.written.push(input);
    const [first, second] = input.notes;
    return reply({
      report: `# Harbour\n\nBuilt long ago [${second!.id}]. Still used [${first!.id}][99].\n\n## References\n\n1. Made up`,
    });
  },
  async writeAnswer(input: AnswerInput): Promise<ResearchReply<{ report: string }>> {
    doubles.answered.push(input);
    const [first, second] = input.sources;
    return reply({ report: `Built long ago [${second!.id}]. Still used [${first!.id}][99].` });
  },
  async judgeReport(input: JudgeInput): Promise<ResearchReply<Verdict>> {
    doubles.judged.push(input);
    return reply(doubles.verdicts.shift() ?? { approved: true, score: 8, observation: 'Good', feedback: '' });
  },
};

beforeAll(async () => {
  tier = await startWorkflowTier(TASK_QUEUE, activities);
});

afterAll(() => tier?.stop());

beforeEach(() => {
  doubles = {
    evaluations: [],
    verdicts: [],
    failSearch: false,
    searched: [],
    robotsAsked: [],
    fetched: [],
    analyzed: [],
    evaluated: [],
    written: [],
    answered: [],
    judged: [],
    pageText: {},
  };
});

function inputFor(mode: ResearchMode, query = 'Who built the harbour and when?'): ResearchInput {
  return {
    request: { query, mode, nocache: false },
    queues: { fetch: TASK_QUEUE, browser: TASK_QUEUE, model: TASK_QUEUE, search: TASK_QUEUE },
    cachePartition: 'org',
    pageConcurrency: 3,
    pageTokens: 1000,
  };
}

/** Runs a research to its end; its events, and the failure when it failed. */
const runResearch = async (input: ResearchInput) => finished(await tier.start('research', input));

const names = (events: RecordedEvent[]) => events.map((event) => event.event);
const dataOf = <E extends keyof ResearchEvents>(events: RecordedEvent[], name: E): ResearchEvents[E][] =>
  events.filter((event) => event.event === name).map((event) => event.data as ResearchEvents[E]);

const ROUND = ['iteration:start', 'searching:start', 'searching:end', 'analyzing:start', 'analyzing:end'];
const EVALUATION = ['evaluating:start', 'evaluating:end', 'iteration:end'];
const FOLLOWING = ['following:start', 'following:end'];
const WRITE_AND_JUDGE = ['writing:start', 'writing:end', 'judging:start', 'judging:end'];

describe('iterations', () => {
  it('fast: plan, one round of searching and reading, one writing call: the hosted ten events', async () => {
    const { events, failure } = await runResearch(inputFor('fast'));
    expect(failure).toBeUndefined();
    expect(names(events)).toEqual(FAST_EVENTS);
    expect(dataOf(events, 'iteration:end')).toEqual([
      expect.objectContaining({ iteration: 1, isLast: true, stopReason: 'max_iterations' }),
    ]);
    expect(dataOf(events, 'writing:start')).toEqual([
      expect.objectContaining({ attempt: 1, maxAttempts: 1, isRevision: false }),
    ]);
    // The searches of a round run at once, so they reach the doubles in either order.
    expect(doubles.searched.map((s) => s.query).sort()).toEqual(['harbour builder', 'harbour year']);
    // Few searches and pages: the mode's budget; and no model call per page, for coverage, outline or review.
    expect(doubles.fetched).toHaveLength(6);
    expect([doubles.analyzed, doubles.evaluated, doubles.written, doubles.judged].map((calls) => calls.length)).toEqual(
      [0, 0, 0, 0],
    );
    expect(doubles.answered).toHaveLength(1);
    // Pages are read a few at once, so they reach the fetch double in any order.
    expect(doubles.answered[0]!.sources.map((source) => source.url).sort()).toEqual([...doubles.fetched].sort());
    for (const event of events)
      expect(event.data).toEqual(
        expect.objectContaining({ message: expect.any(String), timestamp: expect.any(Number) }),
      );
  });

  it('fast: the writer gets the passages of each page that bear on the research, within the budget', async () => {
    const filler = (n: number) => Array.from({ length: n }, (_, i) => `Unrelated paragraph ${i} about gardens.`);
    doubles.pageText['https://site.example/harbour-builder/0'] = [
      ...filler(40),
      'The harbour was built by the engineer Ada Quay in 1851.',
      ...filler(40),
    ].join('\n\n');
    await runResearch(inputFor('fast'));
    const sources = doubles.answered[0]!.sources;
    const builder = sources.find((source) => source.url === 'https://site.example/harbour-builder/0')!;
    expect(builder.excerpts.join('\n')).toContain('Ada Quay in 1851');
    expect(builder.excerpts.length).toBeLessThanOrEqual(3);
    expect(sources.flatMap((source) => source.excerpts).join('').length).toBeLessThanOrEqual(16_000);
  });

  it('fast: fails with no_sources when no page can be read, before any writing', async () => {
    for (const query of ['harbour builder', 'harbour year'])
      for (let i = 0; i < 5; i++) doubles.pageText[`https://site.example/${slug(query)}/${i}`] = '  ';
    const { events, failure } = await runResearch(inputFor('fast'));
    expect(failure?.type).toBe('no_sources');
    expect(names(events).slice(-2)).toEqual(['iteration:end', 'error']);
    expect(doubles.answered).toHaveLength(0);
  });

  it('balanced: searches the gaps again, follows links, and stops early once coverage suffices', async () => {
    doubles.evaluations = [
      { coverage: 'Moderate', shouldContinue: true, nextQueries: ['harbour architect name'] },
      { coverage: 'Solid', shouldContinue: false },
    ];
    const { events, failure } = await runResearch(inputFor('balanced'));
    expect(failure).toBeUndefined();
    const round = [...ROUND, ...FOLLOWING, ...EVALUATION];
    expect(names(events)).toEqual([
      'start',
      'planning:start',
      'planning:end',
      ...round,
      ...round,
      'outlining:start',
      'outlining:end',
      ...WRITE_AND_JUDGE,
      'complete',
    ]);
    const ends = dataOf(events, 'iteration:end');
    expect(ends.map((end) => [end.iteration, end.isLast, end.stopReason])).toEqual([
      [1, false, undefined],
      [2, true, 'coverage_sufficient'],
    ]);
    expect(dataOf(events, 'iteration:start')[1]!.queries).toEqual(['harbour architect name']);
    const followed = dataOf(events, 'following:end')[0]!;
    expect(followed.followed).toBe(3);
    expect(followed.samples.every((sample) => sample.urlSource === 'extracted-link')).toBe(true);
    const complete = dataOf(events, 'complete')[0]!;
    expect(complete.metadata.executedQueries).toEqual([
      ['harbour builder', 'harbour year'],
      ['harbour architect name'],
    ]);
    expect(complete.metadata.gapEvaluations!.map((gap) => gap.researchCoverage)).toEqual(['Moderate', 'Solid']);
    expect(complete.metadata.metrics!.iterations).toBe(2);
  });

  it('balanced: runs out its three rounds and says max_iterations', async () => {
    const { events } = await runResearch(inputFor('balanced'));
    const ends = dataOf(events, 'iteration:end');
    expect(ends.map((end) => [end.iteration, end.isLast, end.stopReason])).toEqual([
      [1, false, undefined],
      [2, false, undefined],
      [3, true, 'max_iterations'],
    ]);
    expect(doubles.evaluated.map((evaluation) => evaluation.iteration)).toEqual([1, 2, 3]);
    // No page is read twice across rounds.
    expect(new Set(doubles.fetched).size).toBe(doubles.fetched.length);
    // The last round proposes no queries: none would run.
    expect(dataOf(events, 'evaluating:end')[2]!.nextQueries).toEqual([]);
  });
});

describe('writing and judging', () => {
  it('revises a report the reviewer sends back, once, then completes with the revision', async () => {
    const rejected = { approved: false, score: 4, observation: 'Thin', feedback: 'Cite the year.' };
    doubles.verdicts = [rejected, { ...rejected, feedback: 'Still thin.' }];
    doubles.evaluations = [{ coverage: 'Solid', shouldContinue: false }];
    const { events } = await runResearch(inputFor('balanced'));
    expect(names(events).slice(-9)).toEqual([...WRITE_AND_JUDGE, ...WRITE_AND_JUDGE, 'complete']);
    expect(doubles.written).toHaveLength(2);
    expect(doubles.written[1]!.revision).toEqual({
      report: expect.stringContaining('# Harbour'),
      feedback: 'Cite the year.',
    });
    expect(
      dataOf(events, 'writing:start').map((start) => [start.attempt, start.isRevision, start.previousScore]),
    ).toEqual([
      [1, false, undefined],
      [2, true, 4],
    ]);
    const complete = dataOf(events, 'complete')[0]!;
    expect(complete.metadata.judgments!.map((judgment) => judgment.approved)).toEqual([false, false]);
  });

  it('cites only pages read (none robots.txt disallows): unknown numbers dropped, renumbered as cited_pages, no list appended', async () => {
    const { events } = await runResearch(inputFor('fast'));
    const complete = dataOf(events, 'complete')[0]!;
    const notes = doubles.answered[0]!.sources;
    expect(complete.report).toContain('Built long ago [1]. Still used [2].');
    expect(complete.report).not.toContain('[99]');
    expect(complete.report).not.toContain('Made up');
    expect(complete.report).toBe('Built long ago [1]. Still used [2].');
    const fetched = new Set(doubles.fetched);
    expect(complete.metadata.citedPages!.map((page) => [page.id, page.url, page.claims])).toEqual([
      ['1', notes[1]!.url, ['Built long ago.']],
      ['2', notes[0]!.url, ['Still used.']],
    ]);
    for (const page of complete.metadata.citedPages!) expect(fetched.has(page.url)).toBe(true);
    expect(doubles.fetched.some((url) => url.includes('/private/'))).toBe(false);
    expect(doubles.robotsAsked).toEqual(
      expect.arrayContaining([
        'https://site.example/private/harbour-builder',
        'https://site.example/private/harbour-year',
      ]),
    );
    expect(complete.metadata.metrics).toMatchObject({
      fetches: 6,
      cachedFetches: 0,
      robotsBlocked: 2,
      searches: { double: 2 },
      tokens: { 'double-model': { input: expect.any(Number), output: expect.any(Number) } },
    });
  });
});

describe('failures', () => {
  it('ends with an error event naming the phase and round when every search fails', async () => {
    doubles.failSearch = true;
    const { events, failure } = await runResearch(inputFor('fast'));
    expect(failure?.type).toBe('search_failed');
    expect(events.at(-1)).toEqual(
      expect.objectContaining({
        event: 'error',
        data: expect.objectContaining({
          error: { name: 'search_failed', message: 'failed to search the web' },
          activity: 'searching',
          iteration: 1,
        }),
      }),
    );
    expect(events.filter((event) => event.event === 'error')).toHaveLength(1);
  });

  it('ends balanced after a round whose pages the model analyzed none of, with research_failed', async () => {
    doubles.analysisFails = () => true;
    const { events, failure } = await runResearch(inputFor('balanced'));
    expect(failure?.type).toBe('research_failed');
    expect(events.at(-1)).toEqual(
      expect.objectContaining({
        event: 'error',
        data: expect.objectContaining({
          error: { name: 'research_failed', message: 'failed to complete the research' },
          activity: 'analyzing',
          iteration: 1,
        }),
      }),
    );
    // One round's searches, no evaluation: the later rounds would have failed every analysis the same way.
    expect(doubles.searched).toHaveLength(2);
    expect(doubles.evaluated).toHaveLength(0);
  });

  it('goes on through a round whose analyses all fail once an earlier round had some', async () => {
    doubles.analysisFails = (url) => url.includes('next-query');
    const { events, failure } = await runResearch(inputFor('balanced'));
    expect(failure).toBeUndefined();
    expect(dataOf(events, 'analyzing:end').map((end) => end.failed > 0 && end.analyzed === 0)).toEqual([
      false,
      true,
      true,
    ]);
    expect(names(events).at(-1)).toBe('complete');
  });

  it('is cancelled when its last reader lets go and none comes back within the grace period', async () => {
    // Planning waits out a ten-minute retry, long past the grace period.
    doubles.planFailure = ApplicationFailure.create({
      type: 'model_transient',
      message: 'HTTP 429',
      nextRetryDelay: '10m',
    });
    const handle = await tier.start('research', inputFor('fast'));
    const first = await handle.executeUpdate(readEventsUpdate, {
      args: [{ readerId: 'reader-1', after: 0, graceMs: 60_000 }],
    });
    expect(first.events.map((event) => event.event)).toContain('start');
    await handle.signal(releaseReaderSignal, { readerId: 'reader-1', graceMs: 60_000 });
    expect(await failureOf(handle.result())).toMatchObject({ type: 'stream_abandoned' });
    const events = (await handle.query(listEventsQuery, { after: 0 })).events;
    expect(events.at(-1)).toEqual(
      expect.objectContaining({
        event: 'error',
        data: expect.objectContaining({ error: expect.objectContaining({ name: 'abandoned' }) }),
      }),
    );
    expect(doubles.searched).toHaveLength(0);
  });
});
