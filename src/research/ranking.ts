import type { Rating } from '../events/research';
import type { SearchHit } from '../search/searchEngine';
import type { AnalyzedPage, PageTarget } from './pages';
import { pageKey } from './queryUrls';

const RATING_ORDER: Record<Rating, number> = { high: 0, medium: 1, low: 2 };

/** The pages worth writing from, best first (relevance, then reliability, then the order read), at most `max`. */
export function bestPages(pages: AnalyzedPage[], max: number): AnalyzedPage[] {
  const score = (page: AnalyzedPage) =>
    RATING_ORDER[page.analysis.relevance] * 3 + RATING_ORDER[page.analysis.reliability];
  return [...pages]
    .filter((page) => page.analysis.relevance !== 'low')
    .sort((a, b) => score(a) - score(b) || a.id - b.id)
    .slice(0, max);
}

/** Pages rated neither irrelevant nor unreliable. */
export function qualityPages(pages: AnalyzedPage[]): AnalyzedPage[] {
  return pages.filter((page) => page.analysis.relevance !== 'low' && page.analysis.reliability !== 'low');
}

/**
 * The new pages a round's searches found, each once: interleaved, so each query's best result
 * comes before any query's second best; a page several queries found lists them all. `answers`
 * lines up with `queries` (undefined: that search failed); pages in `seen` are left out.
 */
export function searchTargets(
  queries: string[],
  answers: ({ hits: SearchHit[] } | undefined)[],
  seen: ReadonlySet<string>,
): { found: PageTarget[]; urlsFound: number } {
  const byUrl = new Map<string, PageTarget>();
  let urlsFound = 0;
  const depth = Math.max(0, ...answers.map((answer) => answer?.hits.length ?? 0));
  for (let rank = 0; rank < depth; rank++) {
    answers.forEach((answer, index) => {
      const hit = answer?.hits[rank];
      if (!hit) return;
      urlsFound++;
      const key = pageKey(hit.url);
      const known = byUrl.get(key);
      if (known) known.sourceQueries.push(queries[index]!);
      else if (!seen.has(key))
        byUrl.set(key, {
          url: hit.url,
          urlSource: 'search-result',
          title: hit.title,
          sourceQueries: [queries[index]!],
          depth: 0,
        });
    });
  }
  return { found: [...byUrl.values()], urlsFound };
}

/**
 * The links the analyses proposed, not in `seen`, most proposed first; a tie goes to the link
 * proposed first, reading the most relevant pages first. Pages of low relevance propose none.
 */
export function linksToFollow(read: AnalyzedPage[], seen: ReadonlySet<string>): PageTarget[] {
  const votes = new Map<string, { target: PageTarget; votes: number; rank: number }>();
  const byRelevance = [...read].sort((a, b) => RATING_ORDER[a.analysis.relevance] - RATING_ORDER[b.analysis.relevance]);
  for (const page of byRelevance) {
    if (page.analysis.relevance === 'low') continue;
    for (const url of page.analysis.promisingLinks) {
      const key = pageKey(url);
      if (seen.has(key)) continue;
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
  return [...votes.values()].sort((a, b) => b.votes - a.votes || a.rank - b.rank).map((entry) => entry.target);
}
