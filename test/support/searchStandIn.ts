import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FixtureServer } from './fixtureServer';
import { searchCorpus } from './researchCorpus';

/**
 * A stand-in for the search engines Research uses, for tests and benchmarks: a real HTTP server
 * that searches the research corpus and answers in each engine's documented JSON:
 * - SearXNG: `GET /search?q=...&format=json` -> `{query, number_of_results, results: [{url, title,
 *   content, engine, ...}]}`
 *   (any other format is 403, as an instance without `json` in `search.formats` answers);
 * - Brave Search API: `GET /res/v1/web/search?q=...&count=...` with `X-Subscription-Token`
 *   -> `{type: 'search', query: {original}, web: {type: 'search', results: [{title, url, description}]}}`.
 * Every query is recorded; `/__control/fail` makes the next answers fail with a status.
 */

export const BRAVE_KEY = 'stand-in-brave-key';

export interface SearchStandIn {
  baseUrl: string;
  /** The Brave endpoint's URL. */
  braveUrl: string;
  queries: string[];
  /** The next `count` searches answer `status` (with `Retry-After` when given). */
  failNext(count: number, status: number, retryAfter?: string): void;
  close(): Promise<void>;
}

export async function startSearchStandIn(corpus: FixtureServer, host = '127.0.0.1', port = 0): Promise<SearchStandIn> {
  const queries: string[] = [];
  let failures: { count: number; status: number; retryAfter?: string } = { count: 0, status: 500 };
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) =>
      res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
    const query = url.searchParams.get('q') ?? '';
    const isSearxng = url.pathname === '/search';
    const isBrave = url.pathname === '/res/v1/web/search';
    if (!isSearxng && !isBrave) return send(404, { error: 'not found' });
    if (isSearxng && url.searchParams.get('format') !== 'json') return res.writeHead(403).end('Forbidden');
    if (isBrave && req.headers['x-subscription-token'] !== BRAVE_KEY) {
      return send(401, {
        type: 'ErrorResponse',
        error: {
          code: 'SUBSCRIPTION_TOKEN_INVALID',
          status: 401,
          detail: 'The provided subscription token is invalid.',
        },
      });
    }
    queries.push(query);
    if (failures.count > 0) {
      failures.count--;
      return send(
        failures.status,
        { error: 'scripted failure' },
        failures.retryAfter ? { 'retry-after': failures.retryAfter } : {},
      );
    }
    const pages = searchCorpus(query);
    if (isSearxng) {
      return send(200, {
        query,
        number_of_results: pages.length,
        results: pages.slice(0, 20).map((page, index) => ({
          url: corpus.url(page.path),
          title: page.title,
          content: page.paragraphs[0],
          engine: 'corpus',
          engines: ['corpus'],
          positions: [index + 1],
          score: 1 / (index + 1),
          category: 'general',
        })),
        answers: [],
        corrections: [],
        infoboxes: [],
        suggestions: [],
        unresponsive_engines: [],
      });
    }
    const count = Math.min(20, Number(url.searchParams.get('count') ?? 20));
    const terms = query
      .split(/\s+/)
      .filter(Boolean)
      .map((term) => term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    const bold = (text: string) =>
      terms.length ? text.replace(new RegExp(`\\b(${terms.join('|')})\\b`, 'gi'), '<strong>$1</strong>') : text;
    return send(200, {
      type: 'search',
      query: { original: query },
      web: {
        type: 'search',
        results: pages.slice(0, count).map((page) => ({
          type: 'search_result',
          title: page.title,
          url: corpus.url(page.path),
          description: bold(page.paragraphs[0]!),
        })),
      },
    });
  });
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  const base = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: base,
    braveUrl: `${base}/res/v1/web/search`,
    queries,
    failNext: (count, status, retryAfter) => (failures = { count, status, retryAfter }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
