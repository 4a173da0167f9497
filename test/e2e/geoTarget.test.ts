import { Server } from 'proxy-chain';
import { FIXTURE_HOST } from '../support/localStack';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';

/** A real forward proxy on loopback, standing in for the operator's proxy for country DE. */
let proxy: Server;
const proxied: string[] = [];
let fixtures: FixtureServer;

beforeAll(async () => {
  proxy = new Server({
    port: Number(process.env.TEST_GEO_PROXY_PORT),
    host: FIXTURE_HOST,
    prepareRequestFunction: ({ hostname, port }) => {
      proxied.push(`${hostname}:${port}`);
      return {};
    },
  });
  await proxy.listen();
  fixtures = await startFixtureServer({
    '/de': html(
      `<html><head><title>Guten Tag</title></head><body><article><h1>Guten Tag</h1><p>${'Eine Seite, die nur über den deutschen Proxy geholt wird. '.repeat(6)}</p></article></body></html>`,
    ),
  });
});

afterAll(async () => {
  await fixtures.close();
  await proxy.close(true);
});

describe('geo_target', () => {
  const target = () => `${FIXTURE_HOST}:${fixtures.port}`;

  it('fetches through the proxy configured for the country', async () => {
    proxied.length = 0;
    const res = await post<{ content: string }>('/extract/markdown', {
      url: fixtures.url('/de'),
      geo_target: { country: 'de' },
      effort: 'min',
      nocache: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Eine Seite, die nur');
    expect(proxied).toContain(target());
  });

  it('renders in the browser through the same proxy', async () => {
    proxied.length = 0;
    const res = await post<{ content: string }>('/extract/markdown', {
      url: fixtures.url('/de'),
      geo_target: { country: 'DE' },
      effort: 'max',
      nocache: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Eine Seite, die nur');
    expect(proxied).toContain(target());
  });

  it('refuses a country with no proxy instead of fetching directly', async () => {
    proxied.length = 0;
    const hitsBefore = fixtures.hits.get('/de') ?? 0;
    const res = await post('/extract/markdown', { url: fixtures.url('/de'), geo_target: { country: 'FR' } });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'geo_target.country FR is not available: no proxy is configured for it' });
    expect(fixtures.hits.get('/de') ?? 0).toBe(hitsBefore);
  });
});
