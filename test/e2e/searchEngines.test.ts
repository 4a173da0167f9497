import { braveSearch } from '../../src/search/braveSearch';
import { SearchError } from '../../src/search/searchEngine';
import { searxngSearch } from '../../src/search/searxng';
import type { FixtureServer } from '../support/fixtureServer';
import { startResearchCorpus } from '../support/researchCorpus';
import { BRAVE_KEY, startSearchStandIn, type SearchStandIn } from '../support/searchStandIn';

/**
 * The search adapters against a real HTTP server answering in each engine's documented JSON
 * (the stand-in Research's end-to-end tests search): what each sends, what it keeps, and how
 * it sorts failures into worth retrying or not.
 *
 * @stack own
 */

let corpus: FixtureServer;
let search: SearchStandIn;

beforeAll(async () => {
  corpus = await startResearchCorpus();
  search = await startSearchStandIn(corpus);
});

afterAll(async () => {
  await search?.close();
  await corpus?.close();
});

async function failure(promise: Promise<unknown>): Promise<SearchError> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SearchError);
  return err as SearchError;
}

describe('SearXNG', () => {
  it('asks /search?q=...&format=json and keeps url, title and content, at most count', async () => {
    const engine = searxngSearch(`${search.baseUrl}/`, 5000);
    const hits = await engine.search('Pont du Gard arches', 3);
    expect(hits).toHaveLength(3);
    expect(hits[0]).toEqual({
      url: corpus.url('/aqueducts/pont-du-gard'),
      title: 'The Pont du Gard',
      snippet: expect.stringContaining('Gardon river'),
    });
    expect(search.queries.at(-1)).toBe('Pont du Gard arches');
  });

  it('retries a server error after its Retry-After, not a refusal', async () => {
    const engine = searxngSearch(search.baseUrl, 5000);
    search.failNext(1, 503, '7');
    expect(await failure(engine.search('bees', 5))).toMatchObject({ retryable: true, retryAfterMs: 7000 });
    search.failNext(1, 400);
    expect(await failure(engine.search('bees', 5))).toMatchObject({ retryable: false });
    expect(await engine.search('bees', 2)).toHaveLength(2);
  });
});

describe('Brave Search API', () => {
  it('sends the key as X-Subscription-Token and count, and reads web.results without the <strong> marks', async () => {
    const engine = braveSearch(search.braveUrl, BRAVE_KEY, 5000);
    const hits = await engine.search('waggle dance bees', 2);
    expect(hits).toHaveLength(2);
    expect(hits[0]).toEqual({
      url: corpus.url('/bees/waggle-dance'),
      title: 'The waggle dance',
      snippet: expect.stringContaining('waggle dance'),
    });
    expect(hits[0]!.snippet).not.toContain('<strong>');
  });

  it('fails for good on a refused key, and retries a rate limit', async () => {
    expect(await failure(braveSearch(search.braveUrl, 'wrong-key', 5000).search('bees', 5))).toMatchObject({
      retryable: false,
    });
    search.failNext(1, 429, '2');
    expect(await failure(braveSearch(search.braveUrl, BRAVE_KEY, 5000).search('bees', 5))).toMatchObject({
      retryable: true,
      retryAfterMs: 2000,
    });
  });
});
