import { apiKey, post } from '../support/api';
import { startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { startSecondApi, stackEnv } from '../support/secondApi';

/** The test stack runs with CACHE_TTL_SECONDS=3. */
const TTL_MS = 3000;

let fixtures: FixtureServer;
let version = 1;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/private': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        '<html><head><title>Private</title></head><body><article><h1>Private</h1><p>A page only its organization has asked for, behind a unique token.</p></article></body></html>',
      );
    },
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<html><head><title>Cached v${version}</title></head><body><article><h1>Version ${version}</h1><p>The cached page body, long enough to count as the main content of this page.</p></article></body></html>`,
      );
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
    // On the cluster this reaches the other API replica, which has the refreshed entry at once.
    const refreshed = await post<Md>('/extract/markdown', { url });
    expect(refreshed.body.content).toContain('Version 2');
    expect(refreshed.headers.get('x-cache')).toBe('hit');

    version = 3;
    // Past the TTL is the point: the entry must have expired, and nothing marks the moment.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS + 500));
    const expired = await post<Md>('/extract/markdown', { url });
    expect(expired.headers.get('x-cache')).toBe('miss');
    expect(expired.body.content).toContain('Version 3');
    expect(fixtures.hits.get('/page')).toBe(4);
  });
});

describe('cache scope', () => {
  const otherKey = () => process.env.TEST_OTHER_ORG_KEY!;

  it('keeps each organization to its own entries by default', async () => {
    const url = `${fixtures.url('/private')}?token=only-a-knows-${Date.now()}`;
    const a = await post<Md>('/extract/markdown', { url });
    expect(a.headers.get('x-cache')).toBe('miss');
    expect((await post<Md>('/extract/markdown', { url })).headers.get('x-cache')).toBe('hit');
    const hitsBefore = fixtures.hits.get('/private');
    const b = await post<Md>('/extract/markdown', { url }, otherKey());
    expect(b.status).toBe(200);
    expect(b.headers.get('x-cache')).toBe('miss');
    expect(fixtures.hits.get('/private')).toBe(hitsBefore! + 1);
  });

  it('shares entries across organizations with CACHE_SCOPE=global, with no x-cache header', async () => {
    const api = await startSecondApi('api-global-cache', {
      env: stackEnv({ CACHE_SCOPE: 'global', CACHE_TTL_SECONDS: '60' }),
    });
    try {
      const base = api.root;
      const url = `${fixtures.url('/private')}?token=shared-${Date.now()}`;
      const ask = (key: string) =>
        fetch(`${base}/v1/extract/markdown`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url }),
        });
      const hitsBefore = fixtures.hits.get('/private') ?? 0;
      const a = await ask(apiKey());
      const b = await ask(otherKey());
      expect([a.status, b.status]).toEqual([200, 200]);
      expect(await b.text()).toContain('only its organization');
      expect(fixtures.hits.get('/private')).toBe(hitsBefore + 1);
      expect([a.headers.get('x-cache'), b.headers.get('x-cache')]).toEqual([null, null]);
    } finally {
      await api.stop();
    }
  });
});
