import { MAX_QUERY_URLS } from './modes';
import { withoutTrailing } from '../text/scan';

/**
 * A closing bracket or parenthesis ends a URL in prose ("(see https://a.example/x)"), except the
 * one that closes an IPv6 host (`http://[::1]:8080/`).
 */
const URL_IN_TEXT = /\bhttps?:\/\/(?:\[[0-9a-f:.]+\][^\s<>"'`\])}]*|[^\s<>"'`\])}]+)/gi;

/** The web addresses a query names, in order, without trailing punctuation, at most MAX_QUERY_URLS. */
export function urlsInQuery(query: string): string[] {
  const found: string[] = [];
  for (const match of query.matchAll(URL_IN_TEXT)) {
    const url = withoutTrailing(match[0], '.,;:!?');
    if (!found.includes(url)) found.push(url);
    if (found.length >= MAX_QUERY_URLS) break;
  }
  return found;
}

/** One form per page, so a page found twice (with another fragment) is read once. */
export function pageKey(url: string): string {
  const hash = url.indexOf('#');
  return hash < 0 ? url : url.slice(0, hash);
}

/** The host a URL names, for page samples. */
export function domainOf(url: string): string {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(?:[^@/?#]*@)?([^/?#:]+|\[[^\]]+\])/i.exec(url);
  return match ? match[1]!.toLowerCase() : '';
}
