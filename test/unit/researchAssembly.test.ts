import type { AnalyzedPage } from '../../src/research/pages';
import { assembleReport, gapEvaluation, judgmentOf, type ResearchRecord } from '../../src/research/report';
import { RunMetrics } from '../../src/research/runMetrics';

const analyzed: AnalyzedPage[] = [
  {
    id: 1,
    url: 'https://a.example/',
    urlSource: 'user-input',
    title: 'A',
    sourceQueries: [],
    depth: 0,
    iteration: 1,
    analysis: { relevance: 'high', reliability: 'high', summary: 'SA', keyFacts: [], promisingLinks: [] },
  },
  {
    id: 2,
    url: 'https://b.example/',
    urlSource: 'search-result',
    title: 'B',
    sourceQueries: ['q1'],
    depth: 0,
    iteration: 1,
    analysis: { relevance: 'medium', reliability: 'low', summary: 'SB', keyFacts: ['F'], promisingLinks: [] },
  },
  {
    id: 3,
    url: 'https://c.example/',
    urlSource: 'extracted-link',
    title: 'C',
    sourceQueries: ['q1'],
    depth: 1,
    parentUrl: 'https://b.example/',
    iteration: 2,
    analysis: { relevance: 'high', reliability: 'medium', summary: 'SC', keyFacts: [], promisingLinks: [] },
  },
];

const record: ResearchRecord = {
  query: 'What?',
  mode: 'balanced',
  plan: { objective: 'O', plan: 'P', complexity: 'moderate', questions: ['Q1'], queries: ['q1'] },
  questions: ['Q1', 'Q2'],
  executedQueries: [['q1'], ['q2']],
  analyzed,
  evaluations: [],
  judgments: [{ approved: true, score: 8, observation: 'Good' }],
};

const metrics = new RunMetrics().summary(2, 1234);

describe('assembleReport', () => {
  it('renumbers citations, describes each cited page and keeps the outline on the new numbers', () => {
    const sources = analyzed.map(({ id, url, title }) => ({ id, url, title }));
    const outline = { directAnswer: 'D', keyTakeaways: ['K'], outline: 'O', sourceIds: [3, 1] };
    const { report, metadata } = assembleReport('First [3]. Then [1][3].', sources, record, metrics, outline);
    expect(report).toBe('First [1]. Then [2][1].');
    expect(metadata.citedPages).toEqual([
      {
        id: '1',
        url: 'https://c.example/',
        title: 'C',
        claims: ['First.', 'Then.'],
        sourceQueries: ['q1'],
        urlSource: 'extracted-link',
        relevance: 'high',
        reliability: 'medium',
        summary: 'SC',
        depth: 1,
        parentUrl: 'https://b.example/',
      },
      {
        id: '2',
        url: 'https://a.example/',
        title: 'A',
        claims: ['Then.'],
        sourceQueries: [],
        urlSource: 'user-input',
        relevance: 'high',
        reliability: 'high',
        summary: 'SA',
        depth: 0,
      },
    ]);
    expect(metadata.outline).toEqual({
      directAnswer: 'D',
      keyTakeaways: ['K'],
      outline: 'O',
      relevantSourceIds: ['2', '1'],
    });
    expect(metadata).toMatchObject({
      prompt: 'What?',
      mode: 'balanced',
      queryComplexity: 'moderate',
      researchObjective: 'O',
      researchPlan: 'P',
      researchQuestions: ['Q1', 'Q2'],
      executedQueries: [['q1'], ['q2']],
      totalPagesAnalyzed: 3,
      gapEvaluations: [],
      judgments: record.judgments,
      metrics,
      urlSources: { userProvided: 1, searchResults: 1, extractedLinks: 1 },
    });
  });

  it('has no outline when none was made, and cites nothing the writer did not cite', () => {
    const { report, metadata } = assembleReport('No citation.', [], record, metrics);
    expect(report).toBe('No citation.');
    expect(metadata.citedPages).toEqual([]);
    expect('outline' in metadata).toBe(false);
  });
});

describe('metadata entries', () => {
  it('keeps an evaluation with the queries the run went on to search', () => {
    const evaluation = {
      coverage: 'Moderate' as const,
      assessments: [{ question: 'Q1', status: 'partial' as const, findings: 'Some' }],
      gaps: 'G',
      shouldContinue: true,
      nextQueries: ['n1', 'n2'],
      newQuestions: ['Q3'],
    };
    expect(gapEvaluation(evaluation, [])).toEqual({
      researchCoverage: 'Moderate',
      gapDescription: 'G',
      questionAssessments: evaluation.assessments,
      shouldContinueResearch: true,
      newResearchQuestions: ['Q3'],
      searchQueries: [],
    });
  });

  it('keeps feedback in a judgment only when the reviewer gave some', () => {
    expect(judgmentOf({ approved: true, score: 9, observation: 'Fine', feedback: '' })).toEqual({
      approved: true,
      score: 9,
      observation: 'Fine',
    });
    expect(judgmentOf({ approved: false, score: 4, observation: 'Thin', feedback: 'More' })).toEqual({
      approved: false,
      score: 4,
      observation: 'Thin',
      feedback: 'More',
    });
  });
});

describe('RunMetrics', () => {
  it('sums phases and tokens by name, rates successes and counts engines', () => {
    const run = new RunMetrics();
    run.fetches = 4;
    run.fetchesOk = 3;
    run.cachedFetches = 1;
    run.robotsBlocked = 2;
    run.searchesRun = 3;
    run.searched('searxng');
    run.searched('searxng');
    run.addPhase('searching', 100);
    run.addPhase('analyzing', 50);
    run.addPhase('searching', 20);
    run.countTokens({ model: 'm1', usage: { prompt: 10, completion: 5, total: 15 } });
    run.countTokens({ model: 'm1', usage: { prompt: 1, completion: 2, total: 3 } });
    run.countTokens({ model: 'm2', usage: { prompt: 7, completion: 0, total: 7 } });
    expect(run.summary(1, 999)).toEqual({
      iterations: 1,
      fetches: 4,
      cachedFetches: 1,
      robotsBlocked: 2,
      searches: { searxng: 2 },
      cachedSearches: {},
      successRates: { fetches: 0.75, searches: 0.667, analyzes: 1 },
      phases: { searching: { duration: 120 }, analyzing: { duration: 50 } },
      tokens: { m1: { input: 11, output: 7 }, m2: { input: 7, output: 0 } },
      totalDuration: 999,
    });
    expect(run.usage).toEqual({ prompt: 18, completion: 7, total: 25 });
  });

  it('keeps the order of the metrics object, as the report has always listed it', () => {
    expect(Object.keys(new RunMetrics().summary(0, 0))).toEqual([
      'iterations',
      'fetches',
      'cachedFetches',
      'robotsBlocked',
      'searches',
      'cachedSearches',
      'successRates',
      'phases',
      'tokens',
      'totalDuration',
    ]);
  });
});
