import { replaceTags } from '../text/markup';
import { getJson, isWebUrl, SearchError, type SearchEngine, type SearchHit } from './searchEngine';

interface BraveAnswer {
  web?: { results?: { url?: unknown; title?: unknown; description?: unknown }[] };
}

/** Brave's documented limits: `q` at most 400 characters (and 50 words), `count` at most 20. */
const MAX_QUERY_CHARS = 400;
const MAX_QUERY_WORDS = 50;
const MAX_COUNT = 20;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", '#x27': "'", nbsp: ' ' };

/** Brave marks the query's words in snippets with `<strong>`; the snippet is wanted as text. */
function plainText(html: string): string {
  return replaceTags(html, '').replace(/&(amp|lt|gt|quot|#39|#x27|nbsp);/g, (_m, name: string) => ENTITIES[name]!);
}

function fitQuery(query: string): string {
  return query.split(/\s+/).filter(Boolean).slice(0, MAX_QUERY_WORDS).join(' ').slice(0, MAX_QUERY_CHARS);
}

/**
 * The Brave Search API's web search: `GET https://api.search.brave.com/res/v1/web/search?q=...&count=...`
 * with the key in `X-Subscription-Token`. The answer's `web.results` hold `url`, `title` and
 * `description` (the snippet); an answer without a `web` section has no web results.
 */
export function braveSearch(endpoint: string, apiKey: string, timeoutMs: number): SearchEngine {
  return {
    name: 'brave',
    async search(query, count, signal) {
      const url = new URL(endpoint);
      url.searchParams.set('q', fitQuery(query));
      url.searchParams.set('count', String(Math.min(count, MAX_COUNT)));
      const answer = (await getJson(url, { 'x-subscription-token': apiKey }, timeoutMs, signal)) as BraveAnswer;
      if (!answer || typeof answer !== 'object') throw new SearchError('Brave answered without a JSON object', false);
      const hits: SearchHit[] = [];
      for (const result of answer.web?.results ?? []) {
        if (!isWebUrl(result.url)) continue;
        hits.push({
          url: result.url,
          title: plainText(String(result.title ?? '')),
          snippet: plainText(String(result.description ?? '')),
        });
        if (hits.length >= count) break;
      }
      return hits;
    },
  };
}
