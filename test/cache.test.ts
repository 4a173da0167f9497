import { post } from './helpers/api';
import { startFixtureServer, type FixtureServer } from './helpers/fixtureServer';

/** The test stack runs with CACHE_TTL_SECONDS=3. */
const TTL_MS = 3000;

let fixtures: FixtureServer;
let version = 1;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<html><head><title>Cached v${version}</title></head><body><article><h1>Version ${version}</h1><p>The cached page body, long enough to count as the main content of this page.</p></article></body></html>`);
    },
  });
});

afterAll(() => fixtures.close());

type Md = { content: string };

describe('result cache', () => {
  it('serves hits without fetching, refreshes on nocache, and expires after the TTL', async () => {
    const url = fixtures.url('/page');
    const first = await post<Md>('/extract/markdown', { url });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-cache')).toBe('miss');
    expect(fixtures.hits.get('/page')).toBe(1);

    const second = await post<Md>('/extract/markdown', { url });
    expect(second.headers.get('x-cache')).toBe('hit');
    expect(second.body.content).toBe(first.body.content);
    expect(fixtures.hits.get('/page')).toBe(1);

    const apart = await post<Md & { metadata: { title: string } }>('/extract/markdown', { url, metadata: true });
    expect(apart.headers.get('x-cache')).toBe('hit');
    expect(apart.body.metadata.title).toBe('Cached v1');
    expect(apart.body.content.startsWith('---')).toBe(false);

    const full = await post<Md>('/extract/markdown', { url, content: 'full' });
    expect(full.headers.get('x-cache')).toBe('miss');
    expect(fixtures.hits.get('/page')).toBe(2);

    version = 2;
    const fresh = await post<Md>('/extract/markdown', { url, nocache: true });
    expect(fresh.headers.get('x-cache')).toBe('miss');
    expect(fresh.body.content).toContain('Version 2');
    expect(fixtures.hits.get('/page')).toBe(3);
    const refreshed = await post<Md>('/extract/markdown', { url });
    expect(refreshed.headers.get('x-cache')).toBe('hit');
    expect(refreshed.body.content).toContain('Version 2');

    version = 3;
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 500));
    const expired = await post<Md>('/extract/markdown', { url });
    expect(expired.headers.get('x-cache')).toBe('miss');
    expect(expired.body.content).toContain('Version 3');
    expect(fixtures.hits.get('/page')).toBe(4);
  });
});
