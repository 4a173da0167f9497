import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type Axe from 'axe-core';
import { chromium, type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { PLAYGROUND_CSP } from '../../src/api/routes/playground';
import { loadConfig } from '../../src/config';
import { decide } from '../support/agentScript';
import { startAutomateSite, type AutomateSite } from '../support/automateSite';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { CORPUS } from '../support/researchCorpus';
import { volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';

/**
 * The playground page (GET /) in real Chromium (Debian's, through Playwright, as the browser
 * workers run it), driven as a person would against a real API and workers (test/support/
 * researchStack.ts: a search stand-in over the research corpus, the shared model stand-in scripted
 * per test), the shop fixture for Automate, and a page server. Each state is saved as a screenshot
 * under data/test-artifacts/playground/.
 */

const SHOTS = path.resolve(__dirname, '..', '..', 'data', 'test-artifacts', 'playground');
/** What the API is told the Web UI's address is; only the link the page makes from it is checked. */
const WEB_UI = 'http://127.0.0.1:18233';
const KEY = () => process.env.TEST_API_KEY!;

let stack: ResearchStack;
let site: AutomateSite;
let pages: FixtureServer;
let browser: Browser;
let root: string;

const LAMP_PAGE = `<!doctype html><html><head><title>Harbour Lamps</title></head><body><main><article>
<h1>Harbour Lamps</h1>
<p>Brass lamps for the harbour, made by hand since 1921. See <a href="https://example.org/lamps">the catalogue</a>
or <a href="javascript:alert(1)">this</a>.</p>
<p><img src="/tracker.png" alt="A brass lamp"></p>
<h2>Models</h2>
<ul><li>Harbour Lamp, 12 euros</li><li>Pier Lamp, 18 euros</li></ul>
<p>Every lamp is tested at sea for a week before it is sold to a customer anywhere in the world.</p>
</article></main></body></html>`;

beforeAll(async () => {
  [stack, site, pages] = await Promise.all([
    startResearchStack('playground', { TEMPORAL_UI_URL: WEB_UI }),
    startAutomateSite(),
    startFixtureServer({ '/lamps': html(LAMP_PAGE), '/tracker.png': html('', 'image/png') }),
  ]);
  root = stack.base.replace(/\/v1$/, '');
  browser = await chromium.launch({
    executablePath: loadConfig().browser.executablePath,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  });
  await mkdir(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([stack?.close(), site?.close(), pages?.close()]);
});

/**
 * A fresh browser profile on the playground; what the page logged as an error is collected. With
 * `audited`, the page's CSP is not enforced, so that axe-core can be put into it.
 */
async function open(
  viewport = { width: 1280, height: 900 },
  audited = false,
): Promise<{
  context: BrowserContext;
  page: Page;
  problems: string[];
  requests: Request[];
}> {
  const context = await browser.newContext({ viewport, bypassCSP: audited });
  const page = await context.newPage();
  const problems: string[] = [];
  const requests: Request[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(message.text());
  });
  page.on('pageerror', (err) => problems.push(err.message));
  page.on('request', (request) => requests.push(request));
  await page.goto(`${root}/`);
  await page.getByRole('radio', { name: 'Extract Markdown' }).waitFor();
  return { context, page, problems, requests };
}

/** axe-core's WCAG 2.1 A and AA findings (labels, contrast, roles, names) on the page as it stands. */
async function accessibilityProblems(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: require.resolve('axe-core/axe.min.js') });
  const results = await page.evaluate(() =>
    (window as unknown as { axe: typeof Axe }).axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
    }),
  );
  return results.violations.map(
    (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`,
  );
}

const shot = (page: Page, name: string) => page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });

async function script(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = { replies: [], byFormat };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

async function useKey(page: Page): Promise<void> {
  await page.getByLabel('API key').fill(KEY());
}

test('Extract Markdown by keyboard alone: rendered beside its source, the key kept in the browser only', async () => {
  const { context, page, problems, requests } = await open();
  const answer = await page.request.get(`${root}/`);
  expect(answer.headers()['content-security-policy']).toBe(PLAYGROUND_CSP);
  // What the launcher asks before it names the playground in its banner (src/stack/untilServing.ts).
  expect((await fetch(`${root}/`, { method: 'OPTIONS' })).status).toBe(204);
  await shot(page, '01-start');

  // No key yet: the API's 401, said plainly.
  await page.getByLabel('Page URL (required)').fill(pages.url('/lamps'));
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.getByRole('alert').filter({ hasText: '401' }).textContent()).resolves.toMatch(/Check the API key/);
  await shot(page, '02-error-no-key');

  // From the top of the page: skip link, key, "remember", the operations, the URL, Enter.
  await page.reload();
  await page.getByRole('radio', { name: 'Extract Markdown' }).waitFor();
  await page.keyboard.press('Tab');
  await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('Skip to the results');
  await page.keyboard.press('Tab');
  await page.keyboard.type(KEY());
  await page.keyboard.press('Tab');
  await page.keyboard.press('Tab');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowLeft');
  await expect(page.evaluate(() => (document.activeElement as HTMLInputElement).value)).resolves.toBe(
    'extract-markdown',
  );
  await page.keyboard.press('Tab');
  await page.keyboard.type(pages.url('/lamps'));
  await page.keyboard.press('Enter');

  const rendered = page.locator('.pair .markdown');
  await rendered.locator('h1', { hasText: 'Harbour Lamps' }).waitFor({ timeout: 30_000 });
  await expect(page.locator('.pair pre.source').textContent()).resolves.toContain('# Harbour Lamps');
  await expect(rendered.locator('li').allTextContents()).resolves.toEqual([
    'Harbour Lamp, 12 euros',
    'Pier Lamp, 18 euros',
  ]);
  // Links leave in a new tab without this page; one that is not http has no address; no image is fetched.
  const catalogue = rendered.getByRole('link', { name: 'the catalogue' });
  await expect(catalogue.getAttribute('rel')).resolves.toBe('noopener noreferrer');
  await expect(catalogue.getAttribute('target')).resolves.toBe('_blank');
  await expect(rendered.locator('a[href^="javascript:"]').count()).resolves.toBe(0);
  await expect(rendered.locator('img').count()).resolves.toBe(0);
  expect(pages.hits.get('/tracker.png') ?? 0).toBe(0);
  await expect(page.locator('#run-meta').textContent()).resolves.toMatch(/Trace id/);
  await shot(page, '03-extract-markdown');

  // The key: in this tab's storage, never in an address, sent only as the bearer header to this API.
  const stored = await page.evaluate(() => ({ session: { ...sessionStorage }, local: { ...localStorage } }));
  expect(Object.values(stored.session)).toContain(KEY());
  expect(Object.values(stored.local)).not.toContain(KEY());
  expect(requests.every((request) => !request.url().includes(KEY()))).toBe(true);
  expect(requests.every((request) => request.url().startsWith(root) || request.url().startsWith('data:'))).toBe(true);
  const posted = requests.filter((request) => request.method() === 'POST');
  expect(posted.at(-1)!.headers().authorization).toBe(`Bearer ${KEY()}`);
  expect(problems.filter((text) => !/status of 401/.test(text))).toEqual([]);
  await context.close();
}, 60_000);

test('Extract JSON and Generate JSON: the schema editor refuses what the API would; answers pretty-printed', async () => {
  const { context, page, problems, requests } = await open();
  await useKey(page);
  await page.getByRole('radio', { name: 'Extract JSON' }).check();
  await page.getByLabel('Page URL (required)').fill(pages.url('/lamps'));
  const editor = page.getByLabel('JSON schema (required)');
  const verdict = page.locator('#field-json_schema-check');
  await expect(verdict.textContent()).resolves.toBe('Valid JSON Schema (draft 2020-12).');

  await editor.fill('{"type": "object", "properties": {"name": {"type": "strin');
  await verdict.filter({ hasText: /^Not JSON/ }).waitFor();
  await editor.fill('{"type": "objekt", "properties": {"name": {"type": "string"}}}');
  await verdict.filter({ hasText: /\/type must be equal to one of the allowed values/ }).waitFor();
  await expect(editor.getAttribute('aria-invalid')).resolves.toBe('true');
  const before = requests.length;
  await page.getByRole('button', { name: 'Run' }).click();
  await expect(page.locator('#form-errors').textContent()).resolves.toMatch(/JSON schema: \/type must be/);
  expect(requests.length).toBe(before);
  await expect(page.evaluate(() => document.activeElement?.id)).resolves.toBe('field-json_schema');
  await shot(page, '04-schema-invalid');

  const schema = { type: 'object', properties: { name: { type: 'string' }, price: { type: 'number' } } };
  await editor.fill(JSON.stringify(schema, null, 2));
  await verdict.filter({ hasText: 'Valid JSON Schema (draft 2020-12).' }).waitFor();
  await script({ answer: [{ content: JSON.stringify({ name: 'Harbour Lamp', price: 12 }), keep: true }] });
  await page.getByRole('button', { name: 'Run' }).click();
  const json = page.locator('#result pre.json');
  await json.waitFor({ timeout: 30_000 });
  await expect(json.textContent()).resolves.toBe(JSON.stringify({ name: 'Harbour Lamp', price: 12 }, null, 2));
  await shot(page, '05-extract-json');

  // Switching operations keeps what the fields they share hold.
  await page.getByRole('radio', { name: 'Generate JSON' }).check();
  await expect(page.getByLabel('Page URL (required)').inputValue()).resolves.toBe(pages.url('/lamps'));
  await expect(page.getByLabel('JSON schema (required)').inputValue()).resolves.toBe(JSON.stringify(schema, null, 2));
  await page
    .getByLabel('JSON schema (required)')
    .fill(JSON.stringify({ type: 'object', properties: { cheapest: { type: 'string' } } }));
  await page.getByLabel('Instructions (required)').fill('Name the cheapest lamp');
  await script({ answer: [{ content: JSON.stringify({ cheapest: 'Harbour Lamp' }), keep: true }] });
  await page.getByRole('button', { name: 'Run' }).click();
  await page.locator('#result pre.json', { hasText: 'cheapest' }).waitFor({ timeout: 30_000 });
  await expect(page.locator('#result pre.json').textContent()).resolves.toBe('{\n  "cheapest": "Harbour Lamp"\n}');
  await shot(page, '06-generate-json');
  expect(problems).toEqual([]);
  await context.close();
}, 60_000);

test('Research: the timeline by phase as events arrive, the report with its citations linked to their sources; no accessibility finding', async () => {
  const { context, page, problems } = await open(undefined, true);
  await useKey(page);
  expect(await accessibilityProblems(page)).toEqual([]);
  await script(volcanoScript());
  await page.getByRole('radio', { name: 'Research' }).check();
  await page.getByLabel('Question (required)').fill('How do the volcanoes of Iceland erupt?');
  await page.getByLabel('Mode', { exact: true }).selectOption('fast');
  await page.getByRole('button', { name: 'Run' }).click();
  const report = page.locator('.report');
  await report.waitFor({ timeout: 45_000 });
  const groups = await page.locator('.timeline .group h4').allTextContents();
  expect(groups).toEqual(expect.arrayContaining(['Start', 'Planning', 'Iteration 1', 'Writing', 'Report']));
  await expect(page.locator('.timeline li[data-event="searching:end"]').textContent()).resolves.toMatch(/Found/);
  await expect(report.locator('.markdown p').first().textContent()).resolves.toBe(
    'Iceland lies on the Mid-Atlantic Ridge [1]. Lava comes in two kinds [2]. A claim from nowhere.',
  );
  // Markers [1] and [2] link to the pages cited (the service dropped the writer's made-up [42]).
  const citations = report.locator('a.citation');
  await expect(citations.allTextContents()).resolves.toEqual(['1', '2']);
  const hrefs = await citations.evaluateAll((links) => links.map((link) => (link as HTMLAnchorElement).href));
  const corpus = new Set(CORPUS.map((entry) => stack.corpus.url(entry.path)));
  for (const href of hrefs) expect(corpus).toContain(href);
  await expect(citations.first().getAttribute('rel')).resolves.toBe('noopener noreferrer');
  await expect(report.locator('ol.sources a').count()).resolves.toBe(2);
  await expect(page.locator('#status').textContent()).resolves.toBe('Research finished.');
  await shot(page, '07-research');
  expect(await accessibilityProblems(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
}, 60_000);

test('Research: a stream that breaks off is read on after its last event, each event shown once', async () => {
  await script(volcanoScript());
  const { context, page, problems } = await open();
  await useKey(page);
  // The run's own stream, cut after its third event as a dropped connection would cut it.
  let whole = '';
  await page.route('**/v1/research', async (route) => {
    const response = await route.fetch();
    whole = await response.text();
    const cut = whole.split('\n\n').slice(0, 3).join('\n\n') + '\n\n';
    await route.fulfill({ response, body: cut });
  });
  await page.getByRole('radio', { name: 'Research' }).check();
  await page.getByLabel('Question (required)').fill('How do the volcanoes of Iceland erupt?');
  await page.getByLabel('Mode', { exact: true }).selectOption('fast');
  const resumed = page.waitForRequest((request) => /\/v1\/runs\/research-[^/]+\/events$/.test(request.url()));
  await page.getByRole('button', { name: 'Run' }).click();
  expect((await resumed).headers()['last-event-id']).toBe('3');
  await page.locator('.report').waitFor({ timeout: 45_000 });
  const sent = [...whole.matchAll(/^event: (.+)$/gm)].map((match) => match[1]);
  const shown = await page
    .locator('.timeline li')
    .evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.event));
  expect(shown.sort()).toEqual(sent.sort());
  expect(problems).toEqual([]);
  await context.close();
}, 60_000);

test('Automate, interactive: reloaded mid-run it resumes after its last event; the request answered through the generated form', async () => {
  const ref = (role: string, name: string) => `{{ref:${role} "${name}"}}`;
  await script({
    automate_plan: [
      {
        keep: true,
        content: JSON.stringify({ plan: 'Fill the checkout', successCriteria: 'Order confirmed', actionItems: [] }),
      },
    ],
    automate_validation: [
      { keep: true, content: JSON.stringify({ completionQuality: 'complete', observation: 'Ordered', feedback: '' }) },
    ],
    automate_action: [
      decide('Place order', { action: 'fill', ref: ref('textbox', 'Full name'), dataPath: 'name' }),
      decide('Place order', { action: 'fill', ref: ref('textbox', 'Email'), dataPath: 'email' }),
      decide('Place order', { action: 'request_input', ref: ref('textbox', 'Card number'), text: 'Payment card' }),
      decide('Place order', { action: 'click', ref: ref('button', 'Place order') }),
      { ...decide('Order confirmed', { action: 'done', text: 'Ordered **WL-1001**' }), keep: true },
    ],
  });
  const { context, page, problems, requests } = await open(undefined, true);
  await useKey(page);
  await page.getByRole('radio', { name: 'Automate' }).check();
  await page.getByLabel('Task (required)').fill('Buy the Aurora headphones');
  await page.getByLabel('Starting URL').fill(`${site.url}/checkout`);
  await page.getByLabel('Data (JSON object)').fill(JSON.stringify({ name: 'Ana Example', email: 'ana@example.org' }));
  await page.getByLabel('Interactive: ask me for form data').check();
  await page.getByLabel('Most iterations').fill('10');
  await page.getByRole('button', { name: 'Run' }).click();
  const form = page.locator('form.input-form');
  await form.waitFor({ timeout: 45_000 });
  await expect(page.evaluate(() => document.activeElement?.textContent)).resolves.toBe('The agent asks for input');
  const seenBefore = await page.locator('.timeline li').count();
  const shotsBefore = await page.locator('img.screenshot').count();
  expect(shotsBefore).toBeGreaterThan(0);
  await shot(page, '08-automate-input-request');

  // A reload mid-run: the page shows what it had and reads on after the last event it saw.
  await page.reload();
  const resumed = await page.waitForRequest((request) => /\/v1\/runs\/automate-[^/]+\/events$/.test(request.url()));
  const lastEventId = Number(resumed.headers()['last-event-id']);
  expect(lastEventId).toBeGreaterThan(0);
  await form.waitFor();
  expect(await page.locator('.timeline li').count()).toBeGreaterThanOrEqual(seenBefore);
  expect(await page.locator('img.screenshot').count()).toBeGreaterThanOrEqual(shotsBefore);
  await expect(page.getByRole('radio', { name: 'Automate' }).isChecked()).resolves.toBe(true);
  await expect(page.getByLabel('Task (required)').inputValue()).resolves.toBe('Buy the Aurora headphones');
  await expect(page.getByLabel('Interactive: ask me for form data').isChecked()).resolves.toBe(true);
  await shot(page, '09-automate-after-reload');
  expect(await accessibilityProblems(page)).toEqual([]);

  // Whatever else the agent asks of the checkout, besides the card, is answered too.
  const answers: Record<string, string> = {
    'Card number': '4111 1111 1111 1111',
    CVC: '123',
    Phone: '+49 30 1234567',
    'Street address': 'Hafenweg 1',
    'Postal code': '20457',
  };
  const asked = await form.locator('.field > label').allTextContents();
  expect(asked).toEqual(expect.arrayContaining(['Card number (required)', 'CVC (required)']));
  for (const label of asked) {
    const value = answers[label.replace(/ \(required\)$/, '')];
    if (value) await form.getByLabel(label, { exact: true }).fill(value);
  }
  await form.getByRole('button', { name: 'Send to the agent' }).click();
  await form.getByRole('status').filter({ hasText: 'Sent; the agent goes on.' }).waitFor();
  const outcome = page.locator('.outcome');
  await outcome.waitFor({ timeout: 45_000 });
  await expect(outcome.textContent()).resolves.toMatch(/Succeeded/);
  await expect(outcome.locator('.markdown strong').textContent()).resolves.toBe('WL-1001');
  await page.locator('#status', { hasText: 'The task finished.' }).waitFor();
  const orders = site.received('/checkout').filter((received) => received.method === 'POST');
  expect(orders.at(-1)!.form).toMatchObject({ card: '4111 1111 1111 1111', name: 'Ana Example' });
  const input = requests.find((request) => /\/v1\/automate\/[^/]+\/input$/.test(request.url()))!;
  expect(JSON.parse(input.postData()!)).toEqual({
    fields: expect.arrayContaining([expect.objectContaining({ value: '4111 1111 1111 1111' })]),
  });

  // The agent's screenshots, as data URLs; the steps as groups; the run in the Web UI.
  const shots = await page
    .locator('img.screenshot')
    .evaluateAll((images) => images.map((image) => (image as HTMLImageElement).src.slice(0, 23)));
  expect(shots.length).toBeGreaterThan(0);
  expect(new Set(shots)).toEqual(new Set(['data:image/jpeg;base64,']));
  await expect(page.locator('.timeline .group h4').allTextContents()).resolves.toEqual(
    expect.arrayContaining(['Task', 'Step 1', 'Step 2', 'End']),
  );
  const workflowId = await page.locator('#run-meta dd', { hasText: '/automate/' }).textContent();
  const link = await page.locator('#web-ui-link').getAttribute('href');
  expect(link).toMatch(
    new RegExp(`^${WEB_UI}/namespaces/default/workflows/${encodeURIComponent(workflowId!)}/[0-9a-f-]{36}/history$`),
  );
  await shot(page, '10-automate-done');
  expect(await accessibilityProblems(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
}, 90_000);

test("On a phone's width: one column, nothing wider than the screen, no accessibility finding", async () => {
  const { context, page, problems } = await open({ width: 390, height: 844 }, true);
  await useKey(page);
  await page.getByLabel('Page URL (required)').fill(pages.url('/lamps'));
  await page.getByRole('button', { name: 'Run' }).click();
  await page.locator('.pair .markdown h1').waitFor({ timeout: 30_000 });
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, screen: innerWidth }));
  expect(widths.page).toBeLessThanOrEqual(widths.screen);
  const [request, result] = await Promise.all(
    ['#request-heading', '#results-heading'].map((selector) => page.locator(selector).boundingBox()),
  );
  expect(result!.y).toBeGreaterThan(request!.y);
  expect(result!.x).toBe(request!.x);
  await shot(page, '11-phone');
  expect(await accessibilityProblems(page)).toEqual([]);
  expect(problems).toEqual([]);
  await context.close();
}, 60_000);

test('A run left for another operation is not brought back by a reload', async () => {
  // Slow answers, so the research is still under way when the person turns to something else.
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, {
    method: 'POST',
    body: JSON.stringify({ replies: [], byFormat: volcanoScript(), delayMs: 3_000 } satisfies StandInScript),
  });
  const { context, page, problems } = await open();
  await useKey(page);
  await page.getByRole('radio', { name: 'Research' }).check();
  await page.getByLabel('Question (required)').fill('How do the volcanoes of Iceland erupt?');
  await page.getByRole('button', { name: 'Run' }).click();
  await page.locator('.timeline li[data-event="start"]').waitFor({ timeout: 30_000 });

  await page.getByRole('radio', { name: 'Extract Markdown' }).check();
  await page.getByLabel('Page URL (required)').fill(pages.url('/lamps'));
  await page.getByRole('button', { name: 'Run' }).click();
  await page.locator('.markdown h1').first().waitFor({ timeout: 30_000 });

  await page.reload();
  await page.getByRole('radio', { name: 'Extract Markdown' }).waitFor();
  // The page is as a fresh one would be: no research restored, no timeline reconnected.
  await expect(page.getByRole('radio', { name: 'Research' }).isChecked()).resolves.toBe(false);
  await expect(page.locator('.timeline-box').count()).resolves.toBe(0);
  expect(problems).toEqual([]);
  await context.close();
  await script({});
}, 60_000);
