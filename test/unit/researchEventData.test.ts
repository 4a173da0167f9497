import {
  analyzedData,
  coverageData,
  failureData,
  followedData,
  plannedData,
  roundEndData,
  searchingData,
  verdictData,
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

describe('research event data', () => {
  it('counts the plan in its message and carries it whole', () => {
    const plan = { objective: 'o', plan: 'p', complexity: 'simple' as const, questions: ['a', 'b'], queries: ['q'] };
    expect(plannedData(plan)).toEqual({ message: 'Planned 2 question(s) and 1 search(es)', ...plan });
  });

  it('says query or queries by their count', () => {
    expect(searchingData(2, ['x']).message).toBe('Searching the web for 1 query');
    expect(searchingData(2, ['x', 'y'])).toEqual({
      message: 'Searching the web for 2 queries',
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
      message: 'Round 1 done; searching again for the gaps',
      iteration: 1,
      isLast: false,
    });
    expect(roundEndData(2, evaluation, 'coverage_sufficient')).toEqual({
      message: 'Coverage is Solid: research stops',
      iteration: 2,
      isLast: true,
      stopReason: 'coverage_sufficient',
    });
    expect(roundEndData(3, evaluation, 'max_iterations').message).toBe('The last round is done');
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
