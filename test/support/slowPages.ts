import type { Handler } from './fixtureServer';

/** Long enough that a fault lands while every extraction is inside its fetch; within effort min's 5 s. */
export const PAGE_DELAY_MS = 3_000;

/**
 * `/slow?id=...`: an article that arrives PAGE_DELAY_MS after its request, so a process can be
 * killed while the request is inside its fetch. Each id is added to `requested` as its fetch
 * arrives, for a test to wait until every request it sent is under way.
 */
export function slowPages(requested: Set<string>): Record<string, Handler> {
  return {
    '/slow': (req, res) => {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
      requested.add(id);
      const body = `<html><head><title>Slow page ${id}</title></head><body><article><h1>Slow page ${id}</h1>
<p>${`Paragraph of slow page ${id}, which takes a while to arrive, long enough to lose a process meanwhile. `.repeat(4)}</p>
</article></body></html>`;
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), PAGE_DELAY_MS);
    },
  };
}
