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
 * Every query is recorded; `failNext` makes the next answers fail with a status, and `faultWhen`
 * answers every query that contains a marker with a fault of its own, so runs in parallel each
 * meet theirs.
 */

export const BRAVE_KEY = 'stand-in-brave-key';

/**
 * How the engine fails a query: an error status, a late answer, half an answer and then nothing
 * (its connection open), a body that is not its JSON, or no results.
 */
export type SearchFault =
  { status: number; times?: number } | { delayMs: number } | { stall: true } | { raw: string } | { empty: true };

export interface SearchStandIn {
  baseUrl: string;
  /** The Brave endpoint's URL. */
  braveUrl: string;
  queries: string[];
  /** The next `count` searches answer `status` (with `Retry-After` when given). */
  failNext(count: number, status: number, retryAfter?: string): void;
  /**
   * Every query containing `marker` meets `fault` (a status only its first `times` times, when
   * given: then the engine recovers).
   */
  faultWhen(marker: string, fault: SearchFault): void;
  close(): Promise<void>;
}

export async function startSearchStandIn(corpus: FixtureServer, host = '127.0.0.1', port = 0): Promise<SearchStandIn> {
  const queries: string[] = [];
  let failures: { count: number; status: number; retryAfter?: string } = { count: 0, status: 500 };
  const faults = new Map<string, SearchFault>();
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
    const marker = [...faults.keys()].find((key) => query.includes(key));
    const fault = marker === undefined ? undefined : faults.get(marker)!;
    if (fault && 'status' in fault && (fault.times ?? Infinity) > 0) {
      if (fault.times !== undefined) fault.times--;
      return send(fault.status, { error: 'scripted fault' });
    }
    if (fault && 'delayMs' in fault) {
      const timer = setTimeout(() => send(200, { query, results: [] }), fault.delayMs);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (fault && 'stall' in fault) {
      const body = JSON.stringify({ query, results: [] });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(body.length) });
      return res.write(body.slice(0, body.length >> 1));
    }
    if (fault && 'raw' in fault) return res.writeHead(200, { 'content-type': 'application/json' }).end(fault.raw);
    const pages = fault && 'empty' in fault ? [] : searchCorpus(query);
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
    faultWhen: (marker, fault) => faults.set(marker, { ...fault }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
