import { getJson, isWebUrl, SearchError, type SearchEngine, type SearchHit } from './searchEngine';

interface SearxngAnswer {
  results?: { url?: unknown; title?: unknown; content?: unknown }[];
}

/**
 * A self-hosted SearXNG: `GET <base>/search?q=<query>&format=json` (the instance must list
 * `json` under `search.formats` in its settings.yml, or it answers 403). Each result has `url`,
 * `title` and `content` (the snippet). SearXNG returns one page of about 20 results and takes
 * no count, so the first `count` are kept.
 */
export function searxngSearch(baseUrl: string, timeoutMs: number): SearchEngine {
  const endpoint = new URL('search', baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  return {
    name: 'searxng',
    async search(query, count, signal) {
      const url = new URL(endpoint);
      url.searchParams.set('q', query);
      url.searchParams.set('format', 'json');
      const answer = (await getJson(url, {}, timeoutMs, signal)) as SearxngAnswer;
      if (!answer || !Array.isArray(answer.results))
        throw new SearchError('SearXNG answered without a results list', false);
      const hits: SearchHit[] = [];
      for (const result of answer.results) {
        if (!isWebUrl(result.url)) continue;
        hits.push({ url: result.url, title: String(result.title ?? ''), snippet: String(result.content ?? '') });
        if (hits.length >= count) break;
      }
      return hits;
    },
  };
}
