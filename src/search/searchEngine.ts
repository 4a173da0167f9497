import type { SearchEngineName } from '../config';

/** One result of a web search: where it points and what the engine showed of it. */
export interface SearchHit {
  url: string;
  title: string;
  snippet: string;
}

/** A web search API, as Research uses it. Adapters follow each API's documented JSON exactly. */
export interface SearchEngine {
  name: SearchEngineName;
  search(query: string, count: number, signal?: AbortSignal): Promise<SearchHit[]>;
}

/** A search that failed, saying whether asking again may help (rate limits, server errors, timeouts). */
export class SearchError extends Error {
  override readonly name = 'SearchError';

  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}

const TRANSIENT = new Set([408, 425, 429, 500, 502, 503, 504]);

function retryAfterMs(headers: Headers): number | undefined {
  const value = headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** GETs a search API's JSON answer, sorting failures into retryable or not. */
export async function getJson(
  url: URL,
  headers: Record<string, string>,
  timeoutMs: number,
  signal?: AbortSignal,
): Promise<unknown> {
  const deadline = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(url, {
      headers: { accept: 'application/json', ...headers },
      signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
    });
  } catch (err) {
    throw new SearchError(
      `${url.origin}${url.pathname} unreachable: ${err instanceof Error ? err.message : String(err)}`,
      true,
    );
  }
  if (!response.ok) {
    const retryable = TRANSIENT.has(response.status);
    await response.body?.cancel();
    throw new SearchError(
      `${url.origin}${url.pathname} answered HTTP ${response.status}`,
      retryable,
      retryable ? retryAfterMs(response.headers) : undefined,
    );
  }
  try {
    return await response.json();
  } catch (err) {
    throw new SearchError(
      `${url.origin}${url.pathname} answered with invalid JSON: ${err instanceof Error ? err.message : String(err)}`,
      true,
    );
  }
}

/** Only web pages research can fetch; engines also return other schemes (magnet:, ftp:). */
export function isWebUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}
