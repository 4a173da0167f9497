import type { ResearchEvents } from '../../src/events/research';
import { apiKey, apiUrls } from '../support/api';
import type { FixtureServer } from '../support/fixtureServer';
import { testTopology } from '../support/localStack';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { startResearchCorpus } from '../support/researchCorpus';
import { startSearchStandIn, type SearchStandIn } from '../support/searchStandIn';
import { SseStream } from '../support/sseClient';

/**
 * The production topology (npm run test:cluster) keeps its promises across processes: either API
 * replica serves the runs the other started. Skipped on the dev stack, which has one API.
 */

const onCluster = testTopology() === 'cluster';

const MODEL_DELAY_MS = 1_000;

const json = (value: unknown): string => JSON.stringify(value);

/** Every model answer comes late, so a run is still going when a second reader joins. */
function slowModelScript(): Record<string, FormatReply[]> {
  const slow = (content: unknown): FormatReply[] => [{ content: json(content), keep: true, delayMs: MODEL_DELAY_MS }];
  return {
    research_plan: slow({
      objective: 'Explain the volcanoes of Iceland.',
      plan: 'Cover the active systems and their eruptions.',
      complexity: 'moderate',
      questions: ['Why is Iceland volcanic?', 'Which eruptions mattered most?'],
      queries: ['Iceland volcanoes eruption'],
    }),
    page_analysis: slow({
      relevance: 'high',
      reliability: 'high',
      summary: 'An Icelandic volcano page.',
      keyFacts: ['Iceland has about 30 active volcanic systems.'],
      promisingLinks: [],
    }),
    coverage_evaluation: slow({
      coverage: 'Solid',
      assessments: [{ question: 'Why is Iceland volcanic?', status: 'answered', findings: 'The Mid-Atlantic Ridge.' }],
      gaps: '',
      shouldContinue: false,
      nextQueries: [],
      newQuestions: [],
    }),
    research_report: slow({ report: '# Volcanoes of Iceland\n\nIceland lies on the Mid-Atlantic Ridge [1].' }),
    report_review: slow({ approved: true, score: 8, observation: 'Sound.', feedback: '' }),
  };
}

async function script(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = { replies: [], byFormat };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

const eventNames = (stream: SseStream) => stream.events.map((message) => message.event);
const research = (at: string, query: string) =>
  SseStream.open(`${at}/research`, { key: apiKey(), method: 'POST', body: { query, nocache: true } });

(onCluster ? describe : describe.skip)('the cluster topology', () => {
  let corpus: FixtureServer;
  let search: SearchStandIn;

  beforeAll(async () => {
    corpus = await startResearchCorpus();
    // The cluster's workers were started with SEARXNG_URL pointing here (test/support/e2eSetup.ts).
    search = await startSearchStandIn(corpus, '127.0.0.1', Number(process.env.TEST_SEARCH_PORT));
  });
  afterAll(async () => {
    await search?.close();
    await corpus?.close();
  });

  it('serves a run started on one API replica from the other, live and after it ended', async () => {
    await script(slowModelScript());
    const [urlA, urlB] = apiUrls();
    const started = await research(urlA!, 'How do the volcanoes of Iceland erupt?');
    const runId = started.response.headers.get('x-run-id');
    expect(runId).toMatch(/^research-/);
    await started.until((stream) => stream.events.length >= 2);
    const live = await SseStream.open(`${urlB}/runs/${runId}/events`, { key: apiKey() });
    expect(live.response.status).toBe(200);
    await Promise.all([started.finished, live.finished]);
    const after = await SseStream.open(`${urlB}/runs/${runId}/events`, { key: apiKey(), lastEventId: 1 });
    await after.finished;

    const complete = (stream: SseStream) =>
      JSON.parse(stream.events.at(-1)?.data ?? '{}') as Partial<ResearchEvents['complete']>;
    const ids = (stream: SseStream) => stream.events.map((message) => [message.id, message.event]);
    expect(eventNames(started).at(-1)).toBe('complete');
    expect(ids(live)).toEqual(ids(started));
    expect(ids(after)).toEqual(ids(started).slice(1));
    expect(complete(live).report).toBe(complete(started).report);
  }, 120_000);
});
