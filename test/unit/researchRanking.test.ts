import type { PageAnalysis } from '../../src/prompts/research.v1';
import { excerptedPage, notesOf, sampleOf, titleOf, type AnalyzedPage } from '../../src/research/pages';
import { bestPages, linksToFollow, qualityPages, searchTargets } from '../../src/research/ranking';
import type { ResearchReading } from '../../src/reading/researchReading';

function page(id: number, analysis: Partial<PageAnalysis>, extra: Partial<AnalyzedPage> = {}): AnalyzedPage {
  return {
    id,
    url: `https://p${id}.example/a`,
    urlSource: 'search-result',
    title: `P${id}`,
    sourceQueries: ['q'],
    depth: 0,
    iteration: 1,
    analysis: {
      relevance: 'medium',
      reliability: 'medium',
      summary: `S${id}`,
      keyFacts: [],
      promisingLinks: [],
      ...analysis,
    },
    ...extra,
  };
}

describe('bestPages', () => {
  it('ranks by relevance, then reliability, then the order read, leaving out irrelevant pages', () => {
    const pages = [
      page(1, { relevance: 'medium', reliability: 'high' }),
      page(2, { relevance: 'high', reliability: 'low' }),
      page(3, { relevance: 'low', reliability: 'high' }),
      page(4, { relevance: 'high', reliability: 'high' }),
      page(5, { relevance: 'medium', reliability: 'high' }),
    ];
    expect(bestPages(pages, 10).map((p) => p.id)).toEqual([4, 2, 1, 5]);
    expect(bestPages(pages, 2).map((p) => p.id)).toEqual([4, 2]);
    expect(pages.map((p) => p.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it('counts as quality only pages neither irrelevant nor unreliable', () => {
    const pages = [page(1, { reliability: 'low' }), page(2, { relevance: 'low' }), page(3, {})];
    expect(qualityPages(pages).map((p) => p.id)).toEqual([3]);
  });
});

describe('searchTargets', () => {
  const hit = (url: string) => ({ url, title: url, snippet: '' });

  it("interleaves the queries' results, merges a page found twice and skips pages seen", () => {
    const { found, urlsFound } = searchTargets(
      ['a', 'b', 'c'],
      [
        { hits: [hit('https://x.example/1'), hit('https://x.example/2'), hit('https://x.example/3')] },
        undefined,
        { hits: [hit('https://y.example/1'), hit('https://x.example/2#part'), hit('https://seen.example/')] },
      ],
      new Set(['https://seen.example/']),
    );
    expect(urlsFound).toBe(6);
    expect(found.map((t) => [t.url, t.sourceQueries])).toEqual([
      ['https://x.example/1', ['a']],
      ['https://y.example/1', ['c']],
      ['https://x.example/2', ['a', 'c']],
      ['https://x.example/3', ['a']],
    ]);
    expect(found[0]).toMatchObject({ urlSource: 'search-result', depth: 0, title: 'https://x.example/1' });
  });

  it('finds nothing when every search failed', () => {
    expect(searchTargets(['a'], [undefined], new Set())).toEqual({ found: [], urlsFound: 0 });
  });
});

describe('linksToFollow', () => {
  it('orders links by votes, then by first proposal from the most relevant pages, skipping seen and low pages', () => {
    const read = [
      page(1, { relevance: 'medium', promisingLinks: ['https://l.example/m', 'https://l.example/shared'] }),
      page(2, { relevance: 'high', promisingLinks: ['https://l.example/h', 'https://l.example/shared#x'] }),
      page(3, { relevance: 'low', promisingLinks: ['https://l.example/low'] }),
      page(4, { relevance: 'high', promisingLinks: ['https://l.example/seen'] }),
    ];
    const links = linksToFollow(read, new Set(['https://l.example/seen']));
    expect(links.map((t) => t.url)).toEqual([
      'https://l.example/shared#x',
      'https://l.example/h',
      'https://l.example/m',
    ]);
    expect(links[1]).toEqual({
      url: 'https://l.example/h',
      urlSource: 'extracted-link',
      sourceQueries: ['q'],
      depth: 1,
      parentUrl: 'https://p2.example/a',
    });
  });

  it('stays linear on many proposals', () => {
    const many = Array.from({ length: 2_000 }, (_, i) =>
      page(i + 1, { promisingLinks: Array.from({ length: 50 }, (_, j) => `https://l.example/${(i * 7 + j) % 5_000}`) }),
    );
    const started = performance.now();
    expect(linksToFollow(many, new Set()).length).toBe(5_000);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});

describe('pages', () => {
  const reading = (title: string): ResearchReading => ({ content: 'text', links: [], metadata: { title } });

  it("names a page by its own title, else the search result's, else its address", () => {
    const target = { url: 'https://a.example/', urlSource: 'search-result' as const, sourceQueries: [], depth: 0 };
    expect(titleOf({ ...target, title: 'Result' }, reading('Own'))).toBe('Own');
    expect(titleOf({ ...target, title: 'Result' }, reading(''))).toBe('Result');
    expect(titleOf(target, reading(''))).toBe('https://a.example/');
  });

  it("gives a page `fast` excerpted neutral ratings and its lead passage's start for a summary", () => {
    const target = { url: 'https://a.example/', urlSource: 'user-input' as const, sourceQueries: [], depth: 0 };
    const excerpted = excerptedPage(
      { ...target, reading: reading('T') },
      { id: 3, title: 'T', iteration: 1, passages: ['x'.repeat(700), 'y'] },
    );
    expect(excerpted).toEqual({
      ...target,
      reading: undefined,
      id: 3,
      title: 'T',
      iteration: 1,
      analysis: {
        relevance: 'medium',
        reliability: 'medium',
        summary: 'x'.repeat(600),
        keyFacts: [],
        promisingLinks: [],
      },
    });
  });

  it('shows a page in events and notes without its text', () => {
    const p = page(2, { relevance: 'high', keyFacts: ['F'] }, { url: 'https://Sub.Example.org:8080/x' });
    expect(sampleOf(p)).toEqual({
      url: 'https://Sub.Example.org:8080/x',
      title: 'P2',
      domain: 'sub.example.org',
      urlSource: 'search-result',
      relevance: 'high',
      reliability: 'medium',
      summary: 'S2',
    });
    expect(notesOf([p])).toEqual([
      {
        id: 2,
        url: 'https://Sub.Example.org:8080/x',
        title: 'P2',
        relevance: 'high',
        reliability: 'medium',
        summary: 'S2',
        keyFacts: ['F'],
      },
    ]);
  });
});
