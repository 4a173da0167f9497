import { CancelledFailure } from '@temporalio/common';
import type { ResearchReading } from '../../src/reading/researchReading';
import { mapBounded } from '../../src/research/mapBounded';
import { PageReader, type PageAnalyst, type ReadingSteps } from '../../src/research/pageReader';
import type { PageTarget } from '../../src/research/pages';
import { RunMetrics } from '../../src/research/runMetrics';
import { searchAll } from '../../src/research/searching';

const reading = (content: string, title = ''): ResearchReading => ({ content, links: [], metadata: { title } });
const target = (url: string, extra: Partial<PageTarget> = {}): PageTarget => ({
  url,
  urlSource: 'search-result',
  sourceQueries: ['q'],
  depth: 0,
  ...extra,
});

/** Steps over a made-up web: `pages` by URL (a string is its text; an Error, a failed read). */
function fakeSteps(pages: Record<string, string | Error>, blocked: string[] = []) {
  const asked: string[][] = [];
  const logged: string[] = [];
  let inFlight = 0;
  let mostAtOnce = 0;
  const steps: ReadingSteps = {
    checkRobots: async ({ urls }) => {
      asked.push(urls);
      return { blocked: urls.filter((url) => blocked.includes(url)) };
    },
    obtain: async (url) => {
      mostAtOnce = Math.max(mostAtOnce, ++inFlight);
      await new Promise((resolve) => setImmediate(resolve));
      inFlight--;
      const page = pages[url];
      if (page === undefined || page instanceof Error) throw page ?? new Error(`no page at ${url}`);
      return { reading: reading(page, `Title of ${url}`), cached: url.includes('cached') };
    },
    log: {
      info: (message) => logged.push(message),
      warn: (message) => logged.push(message),
    },
  };
  return { steps, asked, logged, mostAtOnce: () => mostAtOnce };
}

const analyst: PageAnalyst = async (_target, title) => ({
  value: { relevance: 'high', reliability: 'medium', summary: title, keyFacts: [], promisingLinks: [] },
  usage: { prompt: 10, completion: 2, total: 12 },
  model: 'm',
  promptVersion: 'v',
});

describe('PageReader', () => {
  it('reads pages a few at a time, numbers those analyzed in order and counts what failed', async () => {
    const web = fakeSteps({
      'https://a.example/': 'A',
      'https://b.example/cached': 'B',
      'https://c.example/': new Error('refused'),
      'https://d.example/': '   ',
      'https://e.example/': 'E',
    });
    const metrics = new RunMetrics();
    const reader = new PageReader(web.steps, metrics, 2);
    const urls = ['https://a.example/', 'https://b.example/cached', 'https://c.example/', 'https://d.example/'];
    const first = await reader.analyze(
      1,
      urls.map((url) => target(url)),
      analyst,
    );
    const second = await reader.analyze(2, [target('https://e.example/')], async () => {
      throw new Error('model down');
    });
    expect(first.map((page) => [page.id, page.url, page.title])).toEqual([
      [1, 'https://a.example/', 'Title of https://a.example/'],
      [2, 'https://b.example/cached', 'Title of https://b.example/cached'],
    ]);
    expect(second).toEqual([]);
    expect(reader.analyzed.map((page) => page.id)).toEqual([1, 2]);
    expect(first[0]!.reading).toBeUndefined();
    expect(web.mostAtOnce()).toBe(2);
    expect([...reader.seen].sort()).toEqual([...urls, 'https://e.example/'].sort());
    expect(web.logged).toEqual(['page not read', 'page analysis failed']);
    expect(metrics.summary(2, 0)).toMatchObject({
      fetches: 5,
      cachedFetches: 1,
      successRates: { fetches: 0.8, analyzes: 0.667 },
      tokens: { m: { input: 20, output: 4 } },
    });
  });

  it('asks robots.txt once for the pages not yet read, and never again for those it refuses', async () => {
    const web = fakeSteps({}, ['https://no.example/']);
    const metrics = new RunMetrics();
    const reader = new PageReader(web.steps, metrics, 4);
    const held = target('https://held.example/', { reading: reading('text') });
    const allowed = await reader.allowedByRobots([target('https://yes.example/'), held, target('https://no.example/')]);
    expect(allowed.map((t) => t.url)).toEqual(['https://yes.example/', 'https://held.example/']);
    expect(web.asked).toEqual([['https://yes.example/', 'https://no.example/']]);
    expect(reader.seen.has('https://no.example/')).toBe(true);
    expect(metrics.robotsBlocked).toBe(1);
    expect(await reader.allowedByRobots([held])).toEqual([held]);
    expect(web.asked).toHaveLength(1);
  });

  it('prefetches the pages a query names that robots.txt allows, once each, as the user gave them', async () => {
    const web = fakeSteps({ 'https://a.example/': 'A', 'https://b.example/': 'B' }, ['https://b.example/']);
    const reader = new PageReader(web.steps, new RunMetrics(), 2);
    const read = await reader.prefetch(['https://a.example/', 'https://b.example/', 'https://c.example/']);
    expect(read).toEqual([
      {
        url: 'https://a.example/',
        urlSource: 'user-input',
        title: 'Title of https://a.example/',
        sourceQueries: [],
        depth: 0,
        reading: reading('A', 'Title of https://a.example/'),
      },
    ]);
    expect(await reader.prefetch(['https://a.example/'])).toEqual([]);
  });

  it("keeps each page's passages on the topic for `fast`, numbering only pages that gave some", async () => {
    const web = fakeSteps({
      'https://lava.example/': 'Hekla erupted with lava flows in 1947. '.repeat(20),
      'https://empty.example/': '',
    });
    const reader = new PageReader(web.steps, new RunMetrics(), 2);
    const sources = await reader.excerpts(
      1,
      [target('https://empty.example/'), target('https://lava.example/')],
      'Hekla lava eruption',
    );
    expect(sources.map((source) => [source.id, source.url])).toEqual([[1, 'https://lava.example/']]);
    expect(sources[0]!.excerpts.length).toBeGreaterThan(0);
    expect(reader.analyzed[0]).toMatchObject({ id: 1, iteration: 1, analysis: { relevance: 'medium' } });
  });

  it('lets cancellation through rather than counting it as a page not read', async () => {
    const steps: ReadingSteps = {
      checkRobots: async () => ({ blocked: [] }),
      obtain: async () => {
        throw new CancelledFailure('run cancelled');
      },
      log: { info: () => undefined, warn: () => undefined },
    };
    const reader = new PageReader(steps, new RunMetrics(), 1);
    await expect(reader.analyze(1, [target('https://a.example/')], analyst)).rejects.toBeInstanceOf(CancelledFailure);
  });
});

describe('searchAll', () => {
  it("answers in the queries' order, a failed search as undefined, and counts by engine", async () => {
    const metrics = new RunMetrics();
    const failures: unknown[] = [];
    const answers = await searchAll(
      ['ok', 'bad', 'late'],
      async (query) => {
        if (query === 'bad') throw new Error('engine down');
        if (query === 'late') await new Promise((resolve) => setImmediate(resolve));
        return { engine: 'searxng', hits: [{ url: `https://${query}.example/`, title: query, snippet: '' }] };
      },
      metrics,
      (err) => failures.push(err),
    );
    expect(answers.map((answer) => answer?.hits[0]?.title)).toEqual(['ok', undefined, 'late']);
    expect(failures).toHaveLength(1);
    expect(metrics.summary(1, 0)).toMatchObject({ searches: { searxng: 2 }, successRates: { searches: 0.667 } });
  });

  it('lets cancellation through', async () => {
    const cancelled = searchAll(
      ['q'],
      async () => {
        throw new CancelledFailure('run cancelled');
      },
      new RunMetrics(),
      () => undefined,
    );
    await expect(cancelled).rejects.toBeInstanceOf(CancelledFailure);
  });
});

describe('mapBounded', () => {
  it('keeps the items order and at most `limit` at work', async () => {
    let working = 0;
    let most = 0;
    const results = await mapBounded([5, 1, 4, 2, 3], 2, async (n) => {
      most = Math.max(most, ++working);
      for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
      working--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
    expect(await mapBounded([], 3, async () => 1)).toEqual([]);
  });
});
