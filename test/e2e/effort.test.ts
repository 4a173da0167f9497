import { gzipSync } from 'node:zlib';
import { WorkflowFailedError } from '@temporalio/client';
import { ActivityFailure, ApplicationFailure, type TemporalFailure } from '@temporalio/common';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer, type Handler } from '../support/fixtureServer';
import { withStackClient } from '../support/stackClient';

const SCRIPT_ONLY = `<!doctype html><html><head><title>Script app</title></head><body><div id="root"></div>
<script>
document.getElementById('root').innerHTML = '<article><h1>Rendered by script</h1><p>' +
  'This paragraph only exists after the script has run in a real browser engine. '.repeat(6) + '</p></article>';
</script></body></html>`;

const ARTICLE = `<html><head><title>Behind the gate</title></head><body><article><h1>Behind the gate</h1>
<p>${'Only clients that run the challenge script reach this article text. '.repeat(6)}</p></article></body></html>`;

/** Plain clients get a 403 challenge; a browser runs it, gets the cookie and reloads. */
const CHALLENGE = `<html><head><title>Just a moment...</title></head><body>
<script>document.cookie = 'passed=1; path=/'; location.reload();</script></body></html>`;

const LAZY = `<!doctype html><html><head><title>Lazy list</title></head><body><main><h1>Lazy list</h1>
<p>${'The first screen of a long page whose end loads only when a reader scrolls there. '.repeat(4)}</p>
<div style="height: 4000px"></div><div id="more"></div></main>
<script>
window.addEventListener('scroll', () => {
  if (window.scrollY + window.innerHeight > 3500 && !document.getElementById('late')) {
    document.getElementById('more').innerHTML = '<p id="late">Loaded late, after scrolling to the bottom of the page.</p>';
  }
});
</script></body></html>`;

/** The end of this page comes from the server, asked for only when a reader scrolls near it. */
const LAZY_FETCH = `<!doctype html><html><head><title>Lazy feed</title></head><body><main><h1>Lazy feed</h1>
<p>${'The first screen of a feed whose next items are fetched when a reader scrolls down. '.repeat(4)}</p>
<div style="height: 4000px"></div><div id="more"></div></main>
<script>
let asked = false;
window.addEventListener('scroll', () => {
  if (window.scrollY + window.innerHeight > 3500 && !asked) {
    asked = true;
    fetch('/feed-more').then((r) => r.text()).then((t) => { document.getElementById('more').innerHTML = t; });
  }
});
</script></body></html>`;

/** The article text arrives from a slow API call made after the page has loaded. */
const LATE_DATA = `<!doctype html><html><head><title>Late data</title></head><body><main id="root"><h1>Late data</h1></main>
<script>
window.addEventListener('load', () => {
  setTimeout(() => fetch('/late-body').then((r) => r.text()).then((t) => { document.getElementById('root').insertAdjacentHTML('beforeend', t); }), 50);
});
</script></body></html>`;

/**
 * Once the render scrolls it, this page stops every timer and animation frame, so the reading in
 * progress waits, and navigates: the new document replaces the one being read, every time.
 */
const navigatesWhileRead = (target: string) => `<html><head><title>Moved</title></head><body><p>This page has moved.</p>
<div style="height: 4000px"></div>
<script>
addEventListener('scroll', () => {
  window.requestAnimationFrame = () => 0;
  const last = setTimeout(() => undefined);
  for (let id = 0; id <= last; id++) clearTimeout(id);
  setTimeout(() => { location.href = '${target}'; }, 300);
}, { once: true });
</script></body></html>`;

/** UTF-8 bytes served as plain `text/html`, with no `<meta charset>`: the encoding must come from the bytes. */
const UNDECLARED_UTF8 = Buffer.from(
  `<!doctype html><html><head><title>Play…and Pay</title></head><body><article><h1>Play…and Pay</h1>
<p>${'Arcades – once everywhere – charged “per play”, and café owners loved them. '.repeat(4)}</p><p id="scripted"></p></article>
<script>document.getElementById('scripted').textContent = 'Written by a script: déjà vu — naïve.';</script></body></html>`,
  'utf8',
);

/** Once loaded, the page replaces its timers and frames with ones that never fire. */
const FROZEN_CLOCK = `<!doctype html><html><head><title>Frozen clock</title></head><body><main><h1>Frozen clock</h1>
<p>${'A page whose script stops every timer and animation frame once it has loaded. '.repeat(4)}</p>
<div style="height: 4000px"></div></main>
<script>window.addEventListener('load', () => { window.setTimeout = () => 0; window.requestAnimationFrame = () => 0; });</script></body></html>`;

/** Once loaded, the page's script never gives its main thread back. */
const BUSY_LOOP = `<!doctype html><html><head><title>Busy loop</title></head><body><main><h1>Busy loop</h1>
<p>${'A page whose script spins forever shortly after it has loaded. '.repeat(4)}</p></main>
<script>window.addEventListener('load', () => setTimeout(() => { for (;;) {} }, 50));</script></body></html>`;

const slowly =
  (body: string): Handler =>
  (_req, res) => {
    setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(body), 400);
  };

let fixtures: FixtureServer;
/** An internal service on plain loopback, which the stack must never reach. */
let secrets: FixtureServer;
/** The same on IPv6 loopback. */
let secrets6: FixtureServer;

beforeAll(async () => {
  secrets = await startFixtureServer(
    { '/secret': html('<html><body><p>internal secret token</p></body></html>') },
    '127.0.0.1',
  );
  secrets6 = await startFixtureServer(
    { '/secret': html('<html><body><p>internal secret token</p></body></html>') },
    '::1',
  );
  fixtures = await startFixtureServer({
    '/script-only': html(SCRIPT_ONLY),
    '/gate': (req, res) => {
      const passed = /(^|;\s*)passed=1/.test(req.headers.cookie ?? '');
      res.writeHead(passed ? 200 : 403, { 'content-type': 'text/html' }).end(passed ? ARTICLE : CHALLENGE);
    },
    '/lazy': html(LAZY),
    '/lazy-fetch': html(LAZY_FETCH),
    '/feed-more': slowly('<p>Fetched from the server after the reader scrolled near the end.</p>'),
    '/late-data': html(LATE_DATA),
    '/slow': (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'text/html' }).end(ARTICLE), 3000);
    },
    '/frozen-clock': html(FROZEN_CLOCK),
    '/bad-gateway': html('<html><body><p>upstream down</p></body></html>', 'text/html', 502),
    '/busy-loop': html(BUSY_LOOP),
    '/late-body': slowly(
      `<p>${'Article text that a slow API call delivered after the page load event. '.repeat(4)}</p>`,
    ),
    '/to-internal': (_req, res) => res.writeHead(302, { location: secrets.url('/secret') }).end(),
    '/to-ipv6-loopback': (_req, res) => res.writeHead(302, { location: `http://[::1]:${secrets6.port}/secret` }).end(),
    '/to-mapped-loopback': (_req, res) =>
      res.writeHead(302, { location: `http://[::ffff:127.0.0.1]:${secrets.port}/secret` }).end(),
    '/navigates-internal': html(`<html><head><title>Moving</title></head><body><article><h1>Moving</h1>
<p>${'A page whose script sends the reader to an internal address a moment after it loads. '.repeat(4)}</p></article>
<script>setTimeout(() => { location.href = '${secrets.url('/secret')}'; }, 200);</script></body></html>`),
    '/navigates-while-read': html(navigatesWhileRead('/landing')),
    '/navigates-internal-while-read': html(navigatesWhileRead(secrets.url('/secret'))),
    '/landing': html(ARTICLE),
    '/undeclared-utf8': html(UNDECLARED_UTF8, 'text/html'),
    '/undeclared-utf8-gzip': (_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' }).end(gzipSync(UNDECLARED_UTF8)),
    '/fetches-internal':
      html(`<html><body><article><h1>Innocent</h1><p id="out">${'A page that reads an internal address from its script. '.repeat(5)}</p></article>
<script>fetch('${secrets.url('/secret')}').then((r) => r.text()).then((t) => { document.getElementById('out').textContent = t; });</script></body></html>`),
  });
});

afterAll(async () => {
  await fixtures.close();
  await secrets.close();
  await secrets6.close();
});

type Md = { content: string };

/** The failure a run ended with, as a client of Temporal reads it (failures are encrypted in history). */
async function runFailure(workflowId: string): Promise<TemporalFailure> {
  const err = await withStackClient((client) =>
    client.workflow
      .getHandle(workflowId)
      .result()
      .then(
        () => undefined,
        (e: unknown) => e,
      ),
  );
  expect(err).toBeInstanceOf(WorkflowFailedError);
  return (err as WorkflowFailedError).cause as TemporalFailure;
}
const extract = (path: string, effort: string) =>
  post<Md>('/extract/markdown', { url: fixtures.url(path), effort, metadata: true, nocache: true });

describe('effort levels', () => {
  it('min takes the HTML as served, without running scripts', async () => {
    const res = await extract('/script-only', 'min');
    expect(res.status).toBe(200);
    expect(res.body.content).not.toContain('Rendered by script');
  });

  it('min asks once: a failure worth retrying for standard is not retried', async () => {
    const res = await extract('/bad-gateway', 'min');
    expect([res.status, res.body]).toEqual([500, { error: 'failed to fetch URL' }]);
    expect(fixtures.hits.get('/bad-gateway')).toBe(1);
  });

  it('min gives up on a slow server at its short limit; standard waits for it', async () => {
    // The test stack sets FETCH_MIN_EFFORT_TIMEOUT_MS to 2 s; the page takes 3 s.
    const quick = await extract('/slow', 'min');
    expect(quick.status).toBe(500);
    expect(quick.body).toEqual({ error: 'failed to fetch URL' });
    const patient = await extract('/slow', 'standard');
    expect(patient.status).toBe(200);
    expect(patient.body.content).toContain('Only clients that run the challenge script');
  });

  it('standard turns to the browser for a page drawn by script', async () => {
    const res = await extract('/script-only', 'standard');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('# Rendered by script');
  });

  it('max renders in Chromium', async () => {
    const res = await extract('/script-only', 'max');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('This paragraph only exists after the script has run');
  });

  it('min fails on a page that blocks plain clients; standard gets through in the browser', async () => {
    const blocked = await extract('/gate', 'min');
    expect(blocked.status).toBe(500);
    expect(blocked.body).toEqual({ error: 'failed to fetch URL' });
    const passed = await extract('/gate', 'standard');
    expect(passed.status).toBe(200);
    expect(passed.body.content).toContain('Only clients that run the challenge script reach this article text.');
  });

  it('max scrolls to load lazy content', async () => {
    const res = await extract('/lazy', 'max');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Loaded late, after scrolling');
  });

  it('max waits for what a scroll starts loading', async () => {
    const res = await extract('/lazy-fetch', 'max');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Fetched from the server after the reader scrolled');
  });

  it('max waits for requests a page makes after its load event', async () => {
    const res = await extract('/late-data', 'max');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('a slow API call delivered');
  });

  it('max refuses a page that redirects into an internal address', async () => {
    const res = await extract('/to-internal', 'max');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'access to internal resources is not allowed' });
    expect(secrets.hits.get('/secret')).toBeUndefined();
  });

  it.each([
    ['IPv6 loopback', '/to-ipv6-loopback'],
    ['IPv4-mapped IPv6 loopback', '/to-mapped-loopback'],
  ])('max refuses a redirect to %s', async (_name, path) => {
    const res = await extract(path, 'max');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'access to internal resources is not allowed' });
    expect(secrets.hits.get('/secret')).toBeUndefined();
    expect(secrets6.hits.get('/secret')).toBeUndefined();
  });

  it('max reads the page a script navigates to while it is read', async () => {
    const res = await extract('/navigates-while-read', 'max');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('Only clients that run the challenge script reach this article text.');
    // Read in one render: the navigation did not fail a first attempt that a retry then covered up.
    expect(fixtures.hits.get('/navigates-while-read')).toBe(1);
  });

  it('max refuses a page whose script navigates to an internal address', async () => {
    const res = await extract('/navigates-internal', 'max');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'access to internal resources is not allowed' });
    expect(secrets.hits.get('/secret')).toBeUndefined();
  });

  it.each([
    ['min', '/undeclared-utf8'],
    ['standard', '/undeclared-utf8'],
    ['max', '/undeclared-utf8'],
    ['max', '/undeclared-utf8-gzip'],
  ])('%s reads a UTF-8 page that declares no charset as UTF-8 (%s)', async (effort, path) => {
    const res = await post<Md & { metadata: { title?: string } }>('/extract/markdown', {
      url: fixtures.url(path),
      effort,
      metadata: true,
      nocache: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata.title).toBe('Play…and Pay');
    expect(res.body.content).toContain('Arcades – once everywhere – charged “per play”, and café owners loved them.');
    if (effort === 'max') expect(res.body.content).toContain('Written by a script: déjà vu — naïve.');
  });

  it('max refuses a page that navigates to an internal address while it is read', async () => {
    const res = await extract('/navigates-internal-while-read', 'max');
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'access to internal resources is not allowed' });
    expect(secrets.hits.get('/secret')).toBeUndefined();
  });

  it('max reads a page that stops its own timers and frames, without waiting on them', async () => {
    const started = Date.now();
    const res = await extract('/frozen-clock', 'max');
    expect(res.status).toBe(200);
    expect(res.body.content).toContain('stops every timer');
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('max gives up on a page whose script holds its main thread, at the render deadline', async () => {
    const res = await extract('/busy-loop', 'max');
    expect([res.status, res.body]).toEqual([500, { error: 'failed to fetch URL' }]);
    // Each attempt ended at its own deadline, not at the activity's start-to-close timeout: a render
    // past its deadline would leave the run to fail with a TimeoutFailure (500 internal server error).
    const failure = await runFailure(res.headers.get('x-workflow-id')!);
    expect(failure).toBeInstanceOf(ActivityFailure);
    expect(failure.cause).toBeInstanceOf(ApplicationFailure);
    expect(failure.cause!.message).toMatch(/render deadline|Timeout \d+ms exceeded/);
  }, 120_000);

  it('max refuses a page whose script reads an internal address', async () => {
    const res = await extract('/fetches-internal', 'max');
    expect(res.status).toBe(422);
    expect(secrets.hits.get('/secret')).toBeUndefined();
  });
});
