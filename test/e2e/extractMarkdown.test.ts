import iconv from 'iconv-lite';
import { parse as parseYaml } from 'yaml';
import { post } from '../support/api';
import { eventually } from '../support/eventually';
import { html, redirect, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { withStackClient } from '../support/stackClient';

const ARTICLE = `<!doctype html>
<html lang="en"><head>
<title>HTML Title | Example News</title>
<meta property="og:title" content="The Quiet Harbour: A Story">
<meta property="og:description" content="How a fishing town kept its harbour.">
<meta name="author" content="Ada Lovelace">
<meta property="og:image" content="/img/harbour.jpg">
<meta property="og:site_name" content="Example News">
<meta property="og:type" content="article">
<meta property="og:url" content="https://news.example/harbour">
<meta property="article:publisher" content="Example Media Group">
<link rel="icon" href="/static/favicon.png">
</head><body>
<header><nav><a href="/">Home</a> <a href="/world">World news section</a> <a href="/sport">Sport pages</a></nav></header>
<main><article>
<h1>The Quiet Harbour</h1>
<p>The harbour at dawn is the quietest place in the town, and the fishermen who work there have kept it that way for generations of careful work.</p>
<p>Every boat is tied with the same knot, taught by parents to children, and every net is mended by hand on the long stone quay that faces the sea.</p>
<h2>Keeping the quay</h2>
<p>When the council proposed a marina in 1998, the town voted against it by a wide margin, choosing <a href="/history">its history</a> over the promise of yachts and tourists.</p>
<ul><li>Nets mended by hand</li><li>Boats tied with one knot</li></ul>
<p><img src="/img/quay.jpg" alt="The stone quay"></p>
<p>Today the harbour still wakes before the sun, and the smell of salt and tar fills the narrow streets that lead down to the water from the old church.</p>
</article></main>
<footer><p>Copyright Example News. <a href="/privacy">Privacy policy</a></p></footer>
<script>console.log("never in markdown")</script>
</body></html>`;

let fixtures: FixtureServer;

beforeAll(async () => {
  const latin1 = iconv.encode(
    '<html><body><article><h1>Caf\u00e9 cr\u00e8me</h1><p>Prix: 5\u20ac le caf\u00e9, servi avec cr\u00e8me fra\u00eeche et une tarte aux pommes.</p></article></body></html>',
    'windows-1252',
  );
  const sjis = iconv.encode(
    '<html><head><meta charset="shift_jis"><title>\u6771\u4eac\u306e\u5929\u6c17</title></head><body><article><h1>\u6771\u4eac\u306e\u5929\u6c17</h1><p>\u4eca\u65e5\u306e\u6771\u4eac\u306f\u6674\u308c\u3067\u3059\u3002\u660e\u65e5\u306f\u96e8\u304c\u964d\u308b\u3067\u3057\u3087\u3046\u3002</p></article></body></html>',
    'shift_jis',
  );
  fixtures = await startFixtureServer({
    '/article': html(ARTICLE),
    '/latin1': html(latin1, 'text/html; charset=windows-1252'),
    '/sjis': html(sjis, 'text/html'),
    '/hop1': redirect('/hop2', 301),
    '/hop2': redirect('/article', 302),
    '/missing': html('<h1>gone</h1>', 'text/html', 404),
  });
});

afterAll(() => fixtures.close());

function frontMatter(content: string): { meta: Record<string, unknown>; body: string } {
  const match = /^---\n([\s\S]*?)\n---\n\n?([\s\S]*)$/.exec(content);
  if (!match) throw new Error(`no front matter in: ${content.slice(0, 200)}`);
  return { meta: parseYaml(match[1] ?? '') as Record<string, unknown>, body: match[2] ?? '' };
}

describe('POST /extract/markdown', () => {
  it('returns the main article with YAML front matter by default', async () => {
    const res = await post<{ content: string; url: string; metadata?: unknown }>('/extract/markdown', {
      url: fixtures.url('/article'),
    });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe(fixtures.url('/article'));
    expect(res.body.metadata).toBeUndefined();
    const { meta, body } = frontMatter(res.body.content);
    expect(meta).toEqual({
      title: 'The Quiet Harbour: A Story',
      description: 'How a fishing town kept its harbour.',
      author: 'Ada Lovelace',
      publisher: 'Example Media Group',
      image: fixtures.url('/img/harbour.jpg'),
      site_name: 'Example News',
      url: 'https://news.example/harbour',
      type: 'article',
      favicon: fixtures.url('/static/favicon.png'),
    });
    expect(body).toContain('## Keeping the quay');
    expect(body).toContain('- Nets mended by hand');
    expect(body).toContain(`[its history](${fixtures.url('/history')})`);
    expect(body).toContain(`![The stone quay](${fixtures.url('/img/quay.jpg')})`);
    expect(body).not.toContain('World news section');
    expect(body).not.toContain('Privacy policy');
    expect(body).not.toContain('never in markdown');
  });

  it('returns the whole page with content: full', async () => {
    const res = await post<{ content: string }>('/extract/markdown', {
      url: fixtures.url('/article'),
      content: 'full',
      metadata: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain(`[World news section](${fixtures.url('/world')})`);
    expect(res.body.content).toContain('Privacy policy');
    expect(res.body.content).toContain('## Keeping the quay');
    expect(res.body.content).not.toContain('never in markdown');
  });

  it('returns metadata apart, without front matter, with metadata: true', async () => {
    const res = await post<{ content: string; metadata: Record<string, unknown> }>('/extract/markdown', {
      url: fixtures.url('/article'),
      metadata: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.content.startsWith('---')).toBe(false);
    expect(res.body.content).toContain('The harbour at dawn');
    expect(res.body.metadata).toMatchObject({
      title: 'The Quiet Harbour: A Story',
      author: 'Ada Lovelace',
      favicon: fixtures.url('/static/favicon.png'),
    });
  });

  it('decodes a windows-1252 page declared in the HTTP header', async () => {
    const res = await post<{ content: string }>('/extract/markdown', { url: fixtures.url('/latin1'), metadata: true });
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Prix: 5\u20ac le caf\u00e9');
  });

  it('decodes a Shift_JIS page declared in a meta tag', async () => {
    const res = await post<{ content: string; metadata: { title?: string } }>('/extract/markdown', {
      url: fixtures.url('/sjis'),
      metadata: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata.title).toBe('\u6771\u4eac\u306e\u5929\u6c17');
    expect(res.body.content).toContain('\u4eca\u65e5\u306e\u6771\u4eac\u306f\u6674\u308c\u3067\u3059');
  });

  it('follows redirects and resolves links against the final URL', async () => {
    const res = await post<{ content: string; url: string }>('/extract/markdown', { url: fixtures.url('/hop1') });
    expect(res.status).toBe(200);
    expect(res.body.url).toBe(fixtures.url('/hop1'));
    expect(res.body.content).toContain(`[its history](${fixtures.url('/history')})`);
  });

  it('answers 422 for internal addresses in every form', async () => {
    const port = fixtures.port;
    const internal = [
      `http://127.0.0.1:${port}/article`,
      `http://localhost:${port}/article`,
      `http://[::1]:${port}/article`,
      `http://[::ffff:127.0.0.1]:${port}/article`,
      `http://[::127.0.0.1]:${port}/article`,
      `http://[::ffff:0:127.0.0.1]:${port}/article`,
      `http://[64:ff9b::127.0.0.1]:${port}/article`,
      `http://[2002:7f00:1::1]:${port}/article`,
      'http://[::169.254.169.254]/latest/meta-data/',
      `http://2130706433:${port}/article`,
      `http://0x7f.1:${port}/article`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.5/',
      'http://172.16.3.4/',
      'http://192.168.1.1/',
      'http://100.64.0.1/',
      'http://0.0.0.0/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://printer.local/',
      'http://intranet/',
    ];
    for (const url of internal) {
      const res = await post('/extract/markdown', { url });
      expect({ url, status: res.status, body: res.body }).toEqual({
        url,
        status: 422,
        body: { error: 'access to internal resources is not allowed' },
      });
    }
  });

  it.each(['127.0.0.1', '[::127.0.0.1]'])('blocks a redirect into internal %s at fetch time', async (host) => {
    const hop = await startFixtureServer({ '/to-internal': redirect(`http://${host}:${fixtures.port}/article`) });
    try {
      const res = await post('/extract/markdown', { url: hop.url('/to-internal'), effort: 'min' });
      expect(res.status).toBe(422);
      expect(res.body).toEqual({ error: 'access to internal resources is not allowed' });
    } finally {
      await hop.close();
    }
  });

  it('answers 500 failed to fetch URL for an error page and for a refused connection', async () => {
    const notFound = await post('/extract/markdown', { url: fixtures.url('/missing') });
    expect(notFound.status).toBe(500);
    expect(notFound.body).toEqual({ error: 'failed to fetch URL' });
    const closed = await startFixtureServer({});
    const deadUrl = closed.url('/gone');
    await closed.close();
    const refused = await post('/extract/markdown', { url: deadUrl, effort: 'min' });
    expect(refused.status).toBe(500);
    expect(refused.body).toEqual({ error: 'failed to fetch URL' });
  });

  it('runs one workflow per request, traceable to the organization, with the URL in its memo', async () => {
    const res = await post('/extract/markdown', { url: fixtures.url('/article'), effort: 'min', nocache: true });
    expect(res.status).toBe(200);
    const workflowId = res.headers.get('x-workflow-id') ?? '';
    expect(workflowId).toMatch(/^test-org\/extract-markdown\/[0-9A-Z]{26}$/);
    // The memo is encrypted with the other payloads: the stack's client has their keys.
    const description = await withStackClient((client) => client.workflow.getHandle(workflowId).describe());
    expect(description.status.name).toBe('COMPLETED');
    expect(description.memo).toMatchObject({
      url: fixtures.url('/article'),
      organization: 'test-org',
      operation: 'extract-markdown',
    });
  });

  it('records no promise stacks by default: the stack trace query of a waiting run answers empty', async () => {
    // The page is held until the run has been asked, so the run waits on its fetch meanwhile.
    let answer: () => void = () => undefined;
    let pageAsked: () => void = () => undefined;
    const asked = new Promise<void>((resolve) => (pageAsked = resolve));
    const held = await startFixtureServer({
      '/held': (req, res) => {
        answer = () => {
          answer = () => undefined;
          html(ARTICLE)(req, res);
        };
        pageAsked();
      },
    });
    const url = held.url(`/held?run=${Date.now()}`);
    try {
      await withStackClient(async (client) => {
        const request = post('/extract/markdown', { url, effort: 'standard', nocache: true });
        await asked;
        const running = async () => {
          for await (const run of client.workflow.list({
            query: `WorkflowType = 'extractMarkdown' AND ExecutionStatus = 'Running'`,
          }))
            if (run.memo?.url === url) return run.workflowId;
          return undefined;
        };
        const handle = client.workflow.getHandle(
          await eventually(running, { what: 'the run of the held page', timeoutMs: 30_000 }),
        );
        const trace = await handle.query<string>('__stack_trace');
        const { stacks } = await handle.query<{ stacks: unknown[] }>('__enhanced_stack_trace');
        answer();
        expect((await request).status).toBe(200);
        expect({ trace, stacks }).toEqual({ trace: '', stacks: [] });
      });
    } finally {
      answer();
      await held.close();
    }
  });
});
