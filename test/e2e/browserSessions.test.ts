import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import type { BrowserContext } from 'playwright-core';
import { createSessionOpening, createSessionSteps } from '../../src/activities/sessionActivities';
import type { ReadingPool as ReadingPoolType } from '../../src/reading/readingPool';
import { BrowserPool } from '../../src/browser/browserPool';
import { BrowserSessions } from '../../src/browser/browserSessions';
import { GuardProxy } from '../../src/browser/guardProxy';
import { loadConfig } from '../../src/config';
import { AddressPolicy } from '../../src/net/addressPolicy';
import type { BrowserAction, FirewallRules } from '../../src/operations/automate';
import { SESSION_LOST, STEP_FAILED } from '../../src/operations/automate';
import { readSettings } from '../../src/workers/readSettings';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { FIXTURE_HOST } from '../support/localStack';
import { eventually } from '../support/eventually';

/**
 * The Automate browser-session layer on real Chromium, behind the real guard proxy, against
 * pages served on loopback. Temporal's MockActivityEnvironment only supplies the activity
 * context (heartbeats, cancellation) the real activity functions run in.
 *
 * @stack own
 */

const LIMIT = 2;
const IDLE_MS = 60_000;
const QUEUE = 'test-session-queue';
const UNSAFE: FirewallRules = { enabled: false, trustedHostnames: [] };
/**
 * What "in bounded time" allows beyond a bound of the layer's own (an action's 5 s, a navigation's
 * 15 s): this file runs beside others on two cores, where 9 s was once too few for a 5 s click. A
 * stall would run to the step's 90 s, and each failure's message names the bound that ended it.
 */
const BUSY_MACHINE_MS = 25_000;
const within = (boundMs: number): number => boundMs + BUSY_MACHINE_MS;

const FORM_PAGE = `<!doctype html><html><head><title>Shop</title></head><body>
<h1>Shop</h1>
<form method="post" action="/submitted" aria-label="Order">
  <label>Name <input name="name" required minlength="2"></label>
  <label>Email <input type="email" name="email" autocomplete="email"></label>
  <label>Size <select name="size"><option>Small</option><option>Large</option></select></label>
  <label>Code <input name="code" pattern="[A-Z]{3}" maxlength="3"></label>
  <button>Send</button>
</form>
<p><a href="/second">Next page</a></p>
<p><button id="vanish" onclick="setTimeout(() => this.hidden = true, 0)">Vanish</button></p>
<div style="height: 4000px">Tall content</div>
</body></html>`;

const LOGIN_PAGE = `<!doctype html><html><head><title>Login</title></head><body>
<form method="post" action="/submitted">
  <label>Name <input name="name"></label>
  <label>Password <input type="password" name="pw"></label>
  <button>Sign in</button>
</form>
<a href="/second?e=ada%40example.com">Leak</a>
</body></html>`;

const SIGNUP_PAGE = `<!doctype html><html><head><title>Signup</title></head><body>
<h2>Create your account</h2>
<form method="post" action="/submitted" aria-label="Sign up">
  <label>Full name <input name="name" required minlength="2" maxlength="20" value="Old"></label>
  <label>Email <input type="email" name="email" required></label>
  <label>Phone <input type="tel" name="phone" pattern="[0-9]{3}-[0-9]{4}"></label>
  <label>Age <input type="number" name="age" min="18" max="120"></label>
  <label>Birthday <input type="date" name="bday"></label>
  <label>Password <input type="password" name="pw" value="secret-old"></label>
  <label>Plan <select name="size"><option>Free</option><option>Pro</option></select></label>
  <fieldset><legend>Contact by</legend>
    <label><input type="radio" name="via" value="mail"> Mail</label>
    <label><input type="radio" name="via" value="phone"> Phone call</label>
  </fieldset>
  <label><input type="checkbox" name="terms" required> I agree</label>
  <label>Notes <textarea name="notes" aria-describedby="notes-help"></textarea></label>
  <span id="notes-help">Anything else we should know</span>
  <button>Create</button>
</form>
<form role="search"><label>Search <input name="q"></label></form>
</body></html>`;

const LONG_PAGE = `<!doctype html><html><head><title>Long</title></head><body><ul>${Array.from(
  { length: 3000 },
  (_, i) => `<li><a href="/item/${i}">Item number ${i}</a></li>`,
).join('')}</ul></body></html>`;

/** The ref of the first snapshot line with `role "name"`. */
function refOf(snapshot: string, role: string, name: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(`${role} "${name}`) && l.includes('[ref='));
  const ref = line?.match(/\[ref=([^\]]+)\]/)?.[1];
  if (!ref) throw new Error(`no ${role} "${name}" in the snapshot:\n${snapshot}`);
  return ref;
}

/** Chromium processes descended from this test process. */
function chromiumDescendants(): number[] {
  const rows = execFileSync('ps', ['-eo', 'pid=,ppid=,comm=,args='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/))
    .map(([pid, ppid, comm, ...args]) => ({
      pid: Number(pid),
      ppid: Number(ppid),
      comm: comm ?? '',
      args: args.join(' '),
    }));
  const ours = new Set([process.pid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const row of rows)
      // Jest may run tests in the process that started the shared stack: its worker processes' browsers are not ours.
      if (ours.has(row.ppid) && !ours.has(row.pid) && !row.args.includes('workers/main.js')) {
        ours.add(row.pid);
        grew = true;
      }
  }
  return rows.filter((row) => ours.has(row.pid) && /chrom/i.test(row.comm)).map((row) => row.pid);
}

/** Resident memory of the processes `pids`, summed. */
function residentBytes(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    try {
      const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
      return sum + Number(kb ?? 0) * 1024;
    } catch {
      return sum;
    }
  }, 0);
}

function failureOf(err: unknown): ApplicationFailure {
  if (!(err instanceof ApplicationFailure)) throw err;
  return err;
}

describe('browser sessions', () => {
  let site: FixtureServer;
  let internal: FixtureServer;
  let pool: BrowserPool;
  let proxy: GuardProxy;
  let sessions: BrowserSessions;
  let reader: ReadingPoolType;
  let opening: ReturnType<typeof createSessionOpening>;
  let steps: ReturnType<typeof createSessionSteps>;
  const env = new MockActivityEnvironment();
  const run = <P extends unknown[], R>(fn: (...args: P) => Promise<R>, ...args: P) =>
    env.run(fn, ...args) as Promise<R>;

  const open = (sessionId: string, url?: string, idleMs = IDLE_MS, guarded: string[] = [], hidden: string[] = []) =>
    run(opening.openSession, { sessionId, url, idleMs, hidden, guarded });
  const act = (sessionId: string, action: BrowserAction, firewall = UNSAFE) =>
    run(steps.performAction, { sessionId, action, firewall });
  const observe = (sessionId: string, screenshot = false) => run(steps.observePage, { sessionId, screenshot });
  const close = (sessionId: string) => run(steps.closeSession, { sessionId });
  const contextOf = (sessionId: string) =>
    sessions.use(sessionId, async (session): Promise<BrowserContext> => session.context);
  const evaluate = <T>(sessionId: string, fn: () => T) =>
    sessions.use(sessionId, async (session) => (await session.page()).evaluate(fn));

  beforeAll(async () => {
    site = await startFixtureServer({
      '/form': html(FORM_PAGE),
      '/second': html('<!doctype html><title>Second</title><h1>Second page</h1>'),
      '/long': html(LONG_PAGE),
      '/login': html(LOGIN_PAGE),
      '/signup': html(SIGNUP_PAGE),
      '/busy': html(
        '<!doctype html><title>Busy</title><button onclick="setInterval(() => { for (const end = Date.now() + 60000; Date.now() < end; ); }, 50)">Freeze</button>',
      ),
      // Accepts the request and never answers it: a start page that never loads.
      '/never': () => undefined,
      // Takes 16 MB more every 50 ms and keeps it, up to 3 GB: array buffers, outside the JavaScript heap's cap.
      '/hog': html(
        '<!doctype html><title>Hog</title><script>const kept = []; const grow = setInterval(() => { kept.push(new Uint8Array(16 << 20).fill(1)); if (kept.length >= 192) clearInterval(grow); }, 50);</script>',
      ),
      '/submitted': (req, res) => {
        let body = '';
        req.on('data', (chunk: Buffer) => (body += chunk.toString()));
        req.on('end', () => {
          const fields = new URLSearchParams(body);
          res.writeHead(200, { 'content-type': 'text/html' });
          res.end(
            `<!doctype html><title>Thanks</title><p>Thanks ${fields.get('name')}, size ${fields.get('size')}</p>`,
          );
        });
      },
      '/set-cookie': (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html', 'set-cookie': 'sid=secret-one; Path=/' });
        res.end('<!doctype html><title>Cookie set</title><p>set</p>');
      },
      '/show-cookie': (req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>Cookie</title><p id="c">cookie:${req.headers.cookie ?? 'none'}</p>`);
      },
    });
    internal = await startFixtureServer({ '/': html('<title>Internal</title><p>internal secret</p>') }, '127.0.0.1');
    site.hits.clear();
    const config = loadConfig({});
    const policy = new AddressPolicy([FIXTURE_HOST]);
    pool = new BrowserPool({ ...config.browser, sessions: LIMIT });
    proxy = new GuardProxy(policy);
    sessions = new BrowserSessions(pool, proxy, LIMIT);
    // The reading threads run compiled code: dist/ is built before the e2e tests.
    const readingModule = path.resolve(__dirname, '../../dist/src/reading/readingPool.js');
    const { ReadingPool } = (await import(readingModule)) as typeof import('../../src/reading/readingPool');
    reader = new ReadingPool({ ...config.convert, threads: 1 }, readSettings(config));
    const deps = { sessions, policy, geo: config.geo, userAgent: config.fetch.userAgent, reader, queue: QUEUE };
    opening = createSessionOpening(deps);
    steps = createSessionSteps(deps);
  });

  // A test that failed half way leaves no session to the next.
  afterEach(() => sessions.closeAll());

  afterAll(async () => {
    await sessions?.closeAll();
    await pool?.close();
    await proxy?.close();
    await reader?.close();
    await site?.close();
    await internal?.close();
  });

  it('opens a session on its start page and answers a retried open with the same session', async () => {
    const opened = await open('s-open', site.url('/form'));
    expect(opened).toEqual({ queue: QUEUE, url: site.url('/form'), title: 'Shop' });
    const context = await contextOf('s-open');
    expect(await open('s-open', site.url('/form'))).toEqual(opened);
    expect(await contextOf('s-open')).toBe(context);
    expect(site.hits.get('/form')).toBe(1);
    await close('s-open');
  });

  it('observes the page as a bounded snapshot with refs, and a small scaled screenshot', async () => {
    await open('s-observe', site.url('/form'));
    const seen = await observe('s-observe', true);
    expect(seen.title).toBe('Shop');
    expect(seen.truncated).toBe(false);
    expect(seen.snapshot).toMatch(/textbox "Name" \[ref=e\d+\]/);
    expect(seen.snapshot).toMatch(/button "Send" \[ref=e\d+\]/);
    expect(seen.screenshotBytes).toBeGreaterThan(1000);
    expect(seen.screenshot?.bytes).toBe(seen.screenshotBytes);
    const jpeg = Buffer.from(seen.screenshot!.image, 'base64');
    expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');

    await act('s-observe', { type: 'navigate', url: site.url('/long') });
    const long = await observe('s-observe');
    expect(long.truncated).toBe(true);
    expect(long.snapshot.length).toBeLessThanOrEqual(24_000);
    expect(long.snapshot.length).toBeGreaterThan(20_000);
    // Cut at a line boundary: the last line is whole.
    expect(long.snapshot.split('\n').at(-1)).toMatch(/\[ref=e\d+\]|:$/);
    await close('s-observe');
  });

  it('clicks, fills, selects, presses, scrolls and navigates', async () => {
    await open('s-act', site.url('/form'));
    let snapshot = (await observe('s-act')).snapshot;
    const fill = await act('s-act', {
      type: 'fill',
      ref: refOf(snapshot, 'textbox', 'Name'),
      value: 'Ada',
      source: 'model',
      credential: false,
    });
    expect(fill).toEqual({ success: true, url: site.url('/form'), title: 'Shop', navigated: false });
    expect(
      await act('s-act', { type: 'select', ref: refOf(snapshot, 'combobox', 'Size'), value: 'Large' }),
    ).toMatchObject({
      success: true,
    });
    expect(await act('s-act', { type: 'scroll', direction: 'down' })).toMatchObject({
      success: true,
      navigated: false,
    });
    expect(await evaluate('s-act', () => window.scrollY)).toBeGreaterThan(500);
    await act('s-act', { type: 'scroll', direction: 'up' });
    expect(await evaluate('s-act', () => window.scrollY)).toBe(0);

    const sent = await act('s-act', { type: 'click', ref: refOf(snapshot, 'button', 'Send') });
    expect(sent).toEqual({ success: true, url: site.url('/submitted'), title: 'Thanks', navigated: true });
    expect((await observe('s-act')).snapshot).toContain('Thanks Ada, size Large');

    await act('s-act', { type: 'navigate', url: site.url('/form') });
    snapshot = (await observe('s-act')).snapshot;
    await act('s-act', {
      type: 'fill',
      ref: refOf(snapshot, 'textbox', 'Name'),
      value: 'Bob',
      source: 'model',
      credential: false,
    });
    const entered = await act('s-act', { type: 'press', key: 'Enter', ref: refOf(snapshot, 'textbox', 'Name') });
    expect(entered).toMatchObject({ success: true, title: 'Thanks', navigated: true });

    const text = await run(steps.readPageText, { sessionId: 's-act' });
    expect(text).toEqual({ url: site.url('/submitted'), title: 'Thanks', text: expect.stringContaining('Thanks Bob') });

    const navigated = await act('s-act', { type: 'navigate', url: site.url('/second') });
    expect(navigated).toEqual({ success: true, url: site.url('/second'), title: 'Second', navigated: true });
    await close('s-act');
  });

  it('reports an element that is missing, gone or hidden as a failed action, not a fault', async () => {
    await open('s-missing', site.url('/form'));
    const snapshot = (await observe('s-missing')).snapshot;
    const missing = await act('s-missing', { type: 'click', ref: 'e99999' });
    expect(missing).toMatchObject({ success: false, navigated: false, error: expect.stringContaining('no element') });
    expect(await act('s-missing', { type: 'click', ref: 'e1 >> css=button' })).toMatchObject({ success: false });

    const vanish = refOf(snapshot, 'button', 'Vanish');
    expect(await act('s-missing', { type: 'click', ref: vanish })).toMatchObject({ success: true });
    const started = Date.now();
    const hidden = await act('s-missing', { type: 'click', ref: vanish });
    expect(hidden).toMatchObject({ success: false, error: expect.stringMatching(/Timeout 5000ms/) });
    expect(Date.now() - started).toBeLessThan(within(5_000));
    await close('s-missing');
  });

  it('answers in bounded time on a page whose script holds its main thread', async () => {
    await open('s-busy', site.url('/busy'));
    const freeze = refOf((await observe('s-busy')).snapshot, 'button', 'Freeze');
    let started = Date.now();
    expect(await act('s-busy', { type: 'click', ref: freeze })).toMatchObject({
      success: true,
      url: site.url('/busy'),
    });
    expect(Date.now() - started).toBeLessThan(within(5_000));
    started = Date.now();
    const seen = await observe('s-busy', true);
    // Either what the page showed before it froze, or word that it did not answer: never a stalled step.
    expect(seen.url).toBe(site.url('/busy'));
    expect(Date.now() - started).toBeLessThan(within(5_000));
    started = Date.now();
    expect(await act('s-busy', { type: 'click', ref: freeze })).toMatchObject({ url: site.url('/busy') });
    expect(Date.now() - started).toBeLessThan(within(10_000));
    started = Date.now();
    await close('s-busy');
    expect(Date.now() - started).toBeLessThan(within(0));
  });

  it('fails an extract on a page whose script holds its main thread as a step, in bounded time', async () => {
    await open('s-busy-read', site.url('/busy'));
    const freeze = refOf((await observe('s-busy-read')).snapshot, 'button', 'Freeze');
    await act('s-busy-read', { type: 'click', ref: freeze });
    // The click only starts the page's timer: reading before it first fires would find the page still answering.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const started = Date.now();
    const failed = failureOf(await run(steps.readPageText, { sessionId: 's-busy-read' }).catch((err: unknown) => err));
    expect(failed).toMatchObject({ type: STEP_FAILED, nonRetryable: true });
    expect(failed.message).toBe('reading the page took longer than 5 s');
    expect(Date.now() - started).toBeLessThan(within(5_000));
    await close('s-busy-read');
  });

  it('opens a session whose start page never loads, with the error, within one navigation bound', async () => {
    const started = Date.now();
    const opened = await open('s-never', site.url('/never'));
    expect(Date.now() - started).toBeLessThan(within(15_000));
    expect(opened.startError).toMatch(/^opening http:\/\/[^ ]+\/never: Timeout 15000ms exceeded/);
    expect(sessions.holds('s-never')).toBe(true);
    expect(await act('s-never', { type: 'navigate', url: site.url('/second') })).toMatchObject({
      success: true,
      title: 'Second',
    });
    await close('s-never');
  });

  it('refuses to navigate to internal addresses, typed or clicked, and to other schemes', async () => {
    await open('s-internal', site.url('/form'));
    const typed = await act('s-internal', { type: 'navigate', url: internal.url('/') });
    expect(typed).toMatchObject({ success: false, error: 'access to internal resources is not allowed' });
    const scheme = await act('s-internal', { type: 'navigate', url: 'file:///etc/passwd' });
    expect(scheme).toMatchObject({ success: false, error: 'only http and https URLs can be opened' });

    // A page's own link to an internal address goes through the guard proxy, which refuses it.
    await sessions.use('s-internal', async (session) =>
      (await session.page()).evaluate((href) => {
        const link = document.createElement('a');
        link.href = href;
        link.textContent = 'Internal link';
        document.body.prepend(link);
      }, internal.url('/')),
    );
    const snapshot = (await observe('s-internal')).snapshot;
    const clicked = await act('s-internal', { type: 'click', ref: refOf(snapshot, 'link', 'Internal link') });
    expect(clicked).toMatchObject({ success: false, error: expect.stringContaining('access to internal resources') });
    expect((await observe('s-internal')).snapshot).not.toContain('internal secret');
    await close('s-internal');
    await expect(open('s-internal-start', internal.url('/'))).rejects.toMatchObject({
      type: 'internal_address',
      nonRetryable: true,
    });
  });

  it('asks the action firewall before a fill, a submission or a navigation, and skips what it refuses', async () => {
    const firewall: FirewallRules = { enabled: true, trustedHostnames: [] };
    await open('s-firewall', site.url('/login'), IDLE_MS, ['ada@example.com']);
    site.hits.clear();
    const snapshot = (await observe('s-firewall')).snapshot;
    const password = refOf(snapshot, 'textbox', 'Password');
    const name = refOf(snapshot, 'textbox', 'Name');
    const signIn = refOf(snapshot, 'button', 'Sign in');
    const refused = {
      success: false,
      blocked: true,
      navigated: false,
      error: expect.stringContaining('action firewall'),
    };

    const typed = await act(
      's-firewall',
      { type: 'fill', ref: password, value: 'hunter22', source: 'model', credential: false },
      firewall,
    );
    expect(typed).toMatchObject(refused);
    expect(await evaluate('s-firewall', () => document.querySelector('input')!.form!.pw.value)).toBe('');
    expect(await act('s-firewall', { type: 'click', ref: signIn }, firewall)).toMatchObject(refused);
    expect(await act('s-firewall', { type: 'press', key: 'Enter', ref: name }, firewall)).toMatchObject(refused);
    const leak = site.url('/second?to=ada@example.com');
    expect(await act('s-firewall', { type: 'navigate', url: leak }, firewall)).toMatchObject(refused);
    expect(await act('s-firewall', { type: 'click', ref: refOf(snapshot, 'link', 'Leak') }, firewall)).toMatchObject(
      refused,
    );
    expect(site.hits.get('/submitted')).toBeUndefined();
    expect(site.hits.get('/second')).toBeUndefined();

    // The caller's own answer in the form is consent to send it.
    const answered = await act(
      's-firewall',
      { type: 'fill', ref: name, value: 'Ada', source: 'caller', credential: false },
      firewall,
    );
    expect(answered).toMatchObject({ success: true });
    const sent = await act('s-firewall', { type: 'click', ref: signIn }, firewall);
    expect(sent).toMatchObject({ success: true, title: 'Thanks', navigated: true });

    // A trusted host takes what the model types.
    await act('s-firewall', { type: 'navigate', url: site.url('/login') });
    const trusted = { ...firewall, trustedHostnames: [FIXTURE_HOST] };
    const again = refOf((await observe('s-firewall')).snapshot, 'textbox', 'Password');
    const fill = await act(
      's-firewall',
      { type: 'fill', ref: again, value: 'hunter22', source: 'model', credential: false },
      trusted,
    );
    expect(fill).toMatchObject({ success: true });
    await close('s-firewall');
  });

  it("describes the fields of a form with their rules, and types the caller's answers that meet them", async () => {
    await open('s-form', site.url('/signup'));
    const snapshot = (await observe('s-form')).snapshot;
    const { fields, formDescription } = await run(steps.describeForm, {
      sessionId: 's-form',
      ref: refOf(snapshot, 'textbox', 'Full name'),
    });
    expect(formDescription).toBe('Sign up');
    const byLabel = Object.fromEntries(fields.map((field) => [field.label, field]));
    expect(Object.keys(byLabel)).toEqual([
      'Full name',
      'Email',
      'Phone',
      'Age',
      'Birthday',
      'Password',
      'Plan',
      'Contact by',
      'I agree',
      'Notes',
    ]);
    expect(byLabel['Full name']).toEqual({
      ref: refOf(snapshot, 'textbox', 'Full name'),
      label: 'Full name',
      fieldType: 'text',
      required: true,
      currentValue: 'Old',
      rules: { minLength: 2, maxLength: 20 },
    });
    expect(byLabel['Email']).toMatchObject({ fieldType: 'email', required: true });
    expect(byLabel['Phone']).toMatchObject({ fieldType: 'phone', rules: { pattern: '[0-9]{3}-[0-9]{4}' } });
    expect(byLabel['Age']).toMatchObject({ fieldType: 'number', rules: { min: '18', max: '120' } });
    expect(byLabel['Birthday']).toMatchObject({ fieldType: 'date' });
    expect(byLabel['Password']).toMatchObject({ fieldType: 'password' });
    expect(byLabel['Password']!.currentValue).toBeUndefined();
    expect(byLabel['Plan']).toMatchObject({ fieldType: 'select', options: ['Free', 'Pro'], currentValue: 'Free' });
    expect(byLabel['Contact by']).toMatchObject({ fieldType: 'radio', options: ['Mail', 'Phone call'] });
    expect(byLabel['I agree']).toMatchObject({ fieldType: 'checkbox', required: true, currentValue: 'false' });
    expect(byLabel['Notes']).toMatchObject({ fieldType: 'textarea', description: 'Anything else we should know' });

    const ref = (label: string) => byLabel[label]!.ref;
    const firewall: FirewallRules = { enabled: true, trustedHostnames: [] };
    const { fieldErrors } = await run(steps.fillFields, {
      sessionId: 's-form',
      firewall,
      values: [
        { ref: ref('Full name'), value: 'A' },
        { ref: ref('Email'), value: 'not-an-email' },
        { ref: ref('Phone'), value: '555-1234' },
        { ref: ref('Age'), value: '12' },
        { ref: ref('Password'), value: 'hunter22' },
        { ref: ref('Plan'), value: 'Pro' },
        { ref: ref('Contact by'), value: 'Phone call' },
        { ref: ref('I agree'), value: 'true' },
        { ref: ref('Notes'), value: 'Ring twice' },
        { ref: 'e99999', value: 'x' },
      ],
    });
    expect(fieldErrors).toEqual({
      [ref('Full name')]: 'at least 2 characters are required',
      [ref('Email')]: expect.stringContaining('@'),
      [ref('Age')]: 'the value must be at least 18',
      e99999: expect.stringContaining('no element'),
    });
    const values = await evaluate('s-form', () => {
      const form = document.forms[0]!;
      const value = (name: string) => (form.elements.namedItem(name) as HTMLInputElement).value;
      return {
        name: value('name'),
        email: value('email'),
        phone: value('phone'),
        age: value('age'),
        pw: value('pw'),
        size: value('size'),
        via: (form.elements.namedItem('via') as RadioNodeList).value,
        terms: (form.elements.namedItem('terms') as HTMLInputElement).checked,
        notes: value('notes'),
      };
    });
    expect(values).toEqual({
      name: 'Old',
      email: '',
      phone: '555-1234',
      age: '',
      pw: 'hunter22',
      size: 'Pro',
      via: 'phone',
      terms: true,
      notes: 'Ring twice',
    });

    // The caller filled this POST form: the firewall lets the agent submit it.
    const again = await run(steps.fillFields, {
      sessionId: 's-form',
      firewall,
      values: [{ ref: ref('Email'), value: 'ada@example.com' }],
    });
    expect(again.fieldErrors).toEqual({});
    const sent = await act('s-form', { type: 'click', ref: refOf(snapshot, 'button', 'Create') }, firewall);
    expect(sent).toMatchObject({ success: true, title: 'Thanks', navigated: true });
    expect(await run(steps.describeForm, { sessionId: 's-form', ref: 'e99999' })).toEqual({
      fields: [],
      formDescription: '',
    });
    await close('s-form');
  });

  it('hides the values it was told at opening from an input request’s fields and from what it answers', async () => {
    const secret = 'Ring-twice-42';
    await open('s-hidden', site.url('/signup'), IDLE_MS, [], [secret]);
    let snapshot = (await observe('s-hidden')).snapshot;
    const notes = refOf(snapshot, 'textbox', 'Notes');
    // A plain field and a value that looks like nothing: only the registration says it is secret.
    expect(
      await act('s-hidden', { type: 'fill', ref: notes, value: secret, source: 'model', credential: false }),
    ).toMatchObject({
      success: true,
    });
    const seen = await observe('s-hidden', true);
    snapshot = seen.snapshot;
    expect(snapshot).not.toContain(secret);
    // The page shows the value in its pixels too: the image stays in the session, its size goes out.
    expect(seen.screenshot).toBeUndefined();
    expect(seen.screenshotBytes).toBeGreaterThan(0);
    const { fields } = await run(steps.describeForm, { sessionId: 's-hidden', ref: notes });
    expect(fields.find((field) => field.label === 'Notes')).toMatchObject({ currentValue: '(hidden)' });
    await close('s-hidden');
  });

  it('keeps each session to its own cookies', async () => {
    await open('s-cookie-a', site.url('/set-cookie'));
    await open('s-cookie-b', site.url('/show-cookie'));
    expect((await observe('s-cookie-b')).snapshot).toContain('cookie:none');
    await act('s-cookie-a', { type: 'navigate', url: site.url('/show-cookie') });
    expect((await observe('s-cookie-a')).snapshot).toContain('cookie:sid=secret-one');
    await close('s-cookie-a');
    await close('s-cookie-b');
  });

  it('bounds the sessions of a worker, and a full worker refuses the open for the workflow to wait', async () => {
    await open('s-bound-1');
    await open('s-bound-2');
    const full = failureOf(await open('s-bound-3').catch((err: unknown) => err));
    expect(full.type).toBe('sessions_full');
    // The workflow waits and asks again (with backoff, up to its bound), not Temporal's retry.
    expect(full.nonRetryable).toBe(true);
    await close('s-bound-1');
    await open('s-bound-3');
    await close('s-bound-2');
    await close('s-bound-3');
    expect(sessions.size).toBe(0);
  });

  it('gives a freed session to the waiting organization that holds fewest, not to whoever asks first', async () => {
    const openAs = (organization: string, sessionId: string) =>
      new MockActivityEnvironment({
        workflowExecution: { workflowId: `${organization}/automate/01ARZ3NDEKTSV4RRFFQ69G5FAV`, runId: sessionId },
      }).run(opening.openSession, { sessionId, idleMs: IDLE_MS, hidden: [], guarded: [] });
    const refusal = async (organization: string, sessionId: string) =>
      failureOf(await openAs(organization, sessionId).catch((err: unknown) => err)).type;
    await openAs('org-a', 's-fair-a1');
    await openAs('org-a', 's-fair-a2');
    expect(await refusal('org-a', 's-fair-a3')).toBe('sessions_full');
    expect(await refusal('org-a', 's-fair-a4')).toBe('sessions_full');
    expect(await refusal('org-b', 's-fair-b1')).toBe('sessions_full');
    await close('s-fair-a1');
    // org-a's tasks waited longer and ask first, but org-b holds no session: the slot is b's.
    expect(await refusal('org-a', 's-fair-a3')).toBe('sessions_full');
    expect(await refusal('org-a', 's-fair-a4')).toBe('sessions_full');
    await openAs('org-b', 's-fair-b1');
    await close('s-fair-a2');
    expect(await refusal('org-a', 's-fair-a4')).toBe('sessions_full');
    await openAs('org-a', 's-fair-a3');
    await close('s-fair-b1');
    await openAs('org-a', 's-fair-a4');
    await sessions.closeAll();
  });

  it('ends a session whose page allocates without bound; Chromium stays bounded and other sessions go on', async () => {
    await open('s-calm', site.url('/second'));
    let pids = chromiumDescendants();
    const before = residentBytes(pids);
    let peak = before;
    await open('s-hog', site.url('/hog'));
    // Listing the processes (ps, synchronous) only now and then: it would hold up the pool's watch in this process.
    let round = 0;
    await eventually(
      () => {
        if (round++ % 10 === 0) pids = chromiumDescendants();
        peak = Math.max(peak, residentBytes(pids));
        return !sessions.holds('s-hog');
      },
      { what: 'the allocating session to be ended', timeoutMs: 15_000, intervalMs: 100 },
    );
    const grew = Math.round((peak - before) / 2 ** 20);
    process.stdout.write(`Chromium grew by ${grew} MB at its peak (${Math.round(before / 2 ** 20)} MB before)\n`);
    expect(sessions.holds('s-hog')).toBe(false);
    expect(failureOf(await observe('s-hog').catch((err: unknown) => err)).type).toBe(SESSION_LOST);
    // The renderer's 512 MB, and what the page could add before it was seen.
    expect(grew).toBeLessThan(1_200);
    expect((await observe('s-calm')).title).toBe('Second');
    expect(await act('s-calm', { type: 'navigate', url: site.url('/form') })).toMatchObject({ success: true });
    await close('s-calm');
  });

  it('closes sessions when asked and when idle, and a step on a closed session is SESSION_LOST', async () => {
    await open('s-close', site.url('/second'));
    const context = await contextOf('s-close');
    let closed = false;
    context.on('close', () => (closed = true));
    await close('s-close');
    expect(closed).toBe(true);
    const lost = failureOf(await observe('s-close').catch((err: unknown) => err));
    expect(lost).toMatchObject({ type: SESSION_LOST, nonRetryable: true });
    await close('s-close');

    // The listener goes on the context as the pool makes it: asked for afterwards, a session idle
    // for 400 ms may already be reaped on a loaded machine.
    let reaped = false;
    const openContext = pool.openContext.bind(pool);
    pool.openContext = async (options) => {
      const context = await openContext(options);
      context.on('close', () => (reaped = true));
      return context;
    };
    try {
      await open('s-idle', site.url('/second'), 400);
    } finally {
      pool.openContext = openContext;
    }
    await eventually(() => reaped, { what: 'the idle session to be reaped', timeoutMs: 15_000 });
    expect(failureOf(await observe('s-idle').catch((err: unknown) => err)).type).toBe(SESSION_LOST);
    expect(failureOf(await observe('never-opened').catch((err: unknown) => err)).type).toBe(SESSION_LOST);
  });

  it('leaves no Chromium process behind once sessions and browser are closed', async () => {
    await open('s-last', site.url('/second'));
    expect(chromiumDescendants().length).toBeGreaterThan(0);
    await sessions.closeAll();
    expect(sessions.size).toBe(0);
    await pool.close();
    await eventually(() => chromiumDescendants().length === 0, {
      what: 'every Chromium process to be gone',
      timeoutMs: 5_000,
      intervalMs: 100,
    });
  });
});
