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
} from '../../src/research/eventData';
import type { Evaluation, Verdict } from '../../src/prompts/research.v1';
import type { AnalyzedPage } from '../../src/research/pages';

const evaluation: Evaluation = {
  coverage: 'Solid',
  assessments: [{ question: 'When?', status: 'answered', findings: 'In 2024' }],
  gaps: 'none',
  shouldContinue: false,
  nextQueries: ['more'],
  newQuestions: [],
};

describe('research event messages', () => {
  it("read as the hosted service's recorded fast streams do (shared/hosted-traces)", () => {
    const plan = {
      objective: 'o',
      plan: 'p',
      complexity: 'simple' as const,
      questions: [],
      queries: ['a', 'b', 'c', 'd', 'e', 'f'],
    };
    expect(
      [
        startData(),
        planningData(false),
        plannedData(plan),
        iterationData(1, 1, plan.queries),
        searchingData(1, plan.queries),
        foundData(1, 8, 8),
        fastRoundEndData(1),
        writingData(1, 1),
        draftData(1),
      ].map((data) => data.message),
    ).toEqual([
      'Starting research',
      'Planning research strategy',
      'Planning complete: 6 queries',
      'Starting iteration 1 of 1',
      'Searching with 6 queries',
      'Found 8 URLs',
      'Iteration 1 complete (fast mode)',
      'Writing report',
      'Report draft complete',
    ]);
  });

  it('count in their own fields what the hosted lines leave out', () => {
    expect(foundData(2, 1, 0)).toEqual({ message: 'Found 1 URL', iteration: 2, urlsFound: 1, urlsNew: 0 });
    expect(writingData(2, 2, 6)).toEqual({
      message: 'Revising report (attempt 2 of 2)',
      attempt: 2,
      maxAttempts: 2,
      isRevision: true,
      previousScore: 6,
    });
  });
});

describe('research event data', () => {
  it('counts the plan in its message and carries it whole', () => {
    const plan = { objective: 'o', plan: 'p', complexity: 'simple' as const, questions: ['a', 'b'], queries: ['q'] };
    expect(plannedData(plan)).toEqual({ message: 'Planning complete: 1 query', ...plan });
  });

  it('says query or queries by their count', () => {
    expect(searchingData(2, ['x']).message).toBe('Searching with 1 query');
    expect(searchingData(2, ['x', 'y'])).toEqual({
      message: 'Searching with 2 queries',
      iteration: 2,
      queries: ['x', 'y'],
    });
  });

  it('reports the queries the next round takes, none when research stops', () => {
    expect(coverageData(1, evaluation, [])).toEqual({
      message: 'Coverage: Solid',
      iteration: 1,
      coverage: 'Solid',
      gaps: 'none',
      shouldContinue: false,
      questionAssessments: evaluation.assessments,
      nextQueries: [],
    });
  });

  it('ends a round with why research stops, or that it goes on', () => {
    expect(roundEndData(1, evaluation, undefined)).toEqual({
      message: 'Iteration 1 complete; searching again for the gaps',
      iteration: 1,
      isLast: false,
    });
    expect(roundEndData(2, evaluation, 'coverage_sufficient')).toEqual({
      message: 'Iteration 2 complete: coverage is Solid',
      iteration: 2,
      isLast: true,
      stopReason: 'coverage_sufficient',
    });
    expect(roundEndData(3, evaluation, 'max_iterations').message).toBe('Iteration 3 complete (the last)');
  });

  it('carries a verdict feedback only when there is some', () => {
    const verdict: Verdict = { approved: false, score: 6, observation: 'thin', feedback: '' };
    expect(verdictData(1, verdict)).toEqual({ message: 'Sent back (score 6)', attempt: 1, approved: false, score: 6 });
    expect(verdictData(2, { ...verdict, approved: true, score: 9, feedback: 'cite more' })).toEqual({
      message: 'Approved (score 9)',
      attempt: 2,
      approved: true,
      score: 9,
      feedback: 'cite more',
    });
  });

  it('names a failure by its code and the spec message only, with its phase and round when known', () => {
    expect(failureData('no_sources')).toEqual({
      message: 'no web page could be read for this research',
      error: { name: 'no_sources', message: 'no web page could be read for this research' },
    });
    expect(failureData('research_failed', 'evaluating', 2)).toEqual({
      message: 'failed to complete the research',
      error: { name: 'research_failed', message: 'failed to complete the research' },
      activity: 'evaluating',
      iteration: 2,
    });
  });

  it('counts the pages read against those tried, and shows each without its text', () => {
    const page: AnalyzedPage = {
      id: 1,
      url: 'https://docs.example/guide',
      urlSource: 'search-result',
      title: 'Guide',
      sourceQueries: ['guide'],
      depth: 0,
      iteration: 1,
      analysis: {
        relevance: 'high',
        reliability: 'medium',
        summary: 'How to',
        keyFacts: ['secret fact'],
        promisingLinks: [],
      },
    };
    const sample = {
      url: page.url,
      title: 'Guide',
      domain: 'docs.example',
      urlSource: 'search-result',
      relevance: 'high',
      reliability: 'medium',
      summary: 'How to',
    };
    expect(analyzedData(1, [page], 3)).toEqual({
      message: 'Analyzed 1 of 3 page(s)',
      iteration: 1,
      analyzed: 1,
      failed: 2,
      samples: [sample],
    });
    expect(followedData(2, [], 2)).toEqual({
      message: 'Followed 0 of 2 link(s)',
      iteration: 2,
      followed: 0,
      failed: 2,
      samples: [],
    });
  });
});
