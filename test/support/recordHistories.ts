import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { decide } from './agentScript';
import { startAutomateSite } from './automateSite';
import { html, startFixtureServer } from './fixtureServer';
import { projectRoot, startStack, stopStack, type Stack } from './localStack';
import { testDataConverter } from './payloadKeys';
import type { FormatReply, ScriptedReply } from './modelStandIn';
import { startResearchCorpus } from './researchCorpus';
import { startSearchStandIn } from './searchStandIn';
import { sseMessages } from './sseClient';

/**
 * `npm run histories:record`: runs every workflow type on the real stack (real Temporal, workers,
 * Chromium; the model stand-in for the JSON ones) and writes each run's history to
 * test/histories/, where test/workflow/replay.test.ts replays them against the current code.
 * It overwrites only the files it records, so a history kept from before a patch stays.
 * Re-record only for a deliberate, versioned change (see the README).
 */

const HISTORIES = path.join(projectRoot(), 'test', 'histories');

const paragraph = (topic: string) =>
  `The ${topic} of the harbour is told here in plain sentences that a reader would keep. `.repeat(5);

const ARTICLE = `<html><head><title>Harbour Lamp</title><link rel="icon" href="/favicon.png"></head><body>
<nav><a href="/">Shop</a></nav><main><article><h1>Harbour Lamp</h1><p>${paragraph('lamp')}</p>
<p>Price: 42.50 EUR. Solid brass body; burns lamp oil for twelve hours.</p></article></main></body></html>`;

const SCRIPT_SHELL = `<!doctype html><html><head><title>Script app</title></head><body><div id="root"></div>
<script>document.getElementById('root').innerHTML = '<article><h1>Rendered by script</h1><p>' +
  'This paragraph only exists after the script has run in a browser. '.repeat(6) + '</p></article>';</script></body></html>`;

/** Plain clients get a 403 challenge; a browser runs it, gets the cookie and reloads. */
const CHALLENGE = `<html><head><title>Just a moment...</title></head><body>
<script>document.cookie = 'passed=1; path=/'; location.reload();</script></body></html>`;

const FLEET = `<html><head><title>Harbour fleet</title></head><body><article><h1>Harbour fleet</h1>${Array.from(
  { length: 40 },
  (_, i) =>
    `<h2>Boat ${i}</h2><p>${`The boat number ${i} is moored at the quay with its crew of fishermen who mend nets every morning. `.repeat(6)}</p>`,
).join('')}</article></body></html>`;

const PRODUCT_SCHEMA = {
  type: 'object',
  properties: { name: { type: 'string' }, price: { type: ['number', 'null'] }, page_title: { type: 'string' } },
  required: ['name', 'price'],
};

const FLEET_SCHEMA = {
  type: 'object',
  properties: { boats: { type: 'array', items: { type: 'string' } } },
  required: ['boats'],
};

/** An answer that fails the schema, so the run's history holds a repair. */
const INVALID_ANSWER: ScriptedReply = { content: JSON.stringify({ name: 'Harbour Lamp', price: '42.50 EUR' }) };
const VALID_ANSWER: ScriptedReply = { content: JSON.stringify({ name: 'Harbour Lamp', price: 42.5 }) };

interface InputRequest {
  requestId: string;
  fields: { ref: string; label: string }[];
}

/** Where a recording's pages are. */
interface Pages {
  url(path: string): string;
}

interface Recording {
  name: string;
  route: string;
  body: (pages: Pages) => Record<string, unknown>;
  replies?: ScriptedReply[];
  /** Replies by schema name, for runs that ask the model in parallel (Research) or many times (Automate). */
  byFormat?: (pages: Pages) => Record<string, FormatReply[]>;
  /** The API's answer; 500 for a run that fails. */
  status?: number;
  /** The answer to an automate run's input request (`POST /v1/automate/{requestId}/input`), sent when one comes. */
  input?: (request: InputRequest) => Record<string, unknown>;
}

const answer = (value: unknown): FormatReply => ({ content: JSON.stringify(value), keep: true });

/**
 * A `balanced` research run that reads, follows a link, searches a second round, and has its
 * first draft sent back; `fast` plans, reads and answers once.
 */
const researchReplies = (corpus: Pages): Record<string, FormatReply[]> => ({
  research_plan: [
    answer({
      objective: 'Explain Roman aqueducts',
      plan: 'Sources on building and water supply',
      complexity: 'moderate',
      questions: ['How did they flow?', 'Which survive?'],
      queries: ['Roman aqueducts gradient', 'Pont du Gard arches'],
    }),
  ],
  page_analysis: [
    {
      ...answer({
        relevance: 'high',
        reliability: 'high',
        summary: 'On the gradient.',
        keyFacts: ['The Nîmes aqueduct dropped about 25 cm per km.'],
        promisingLinks: [corpus.url('/aqueducts/frontinus')],
      }),
      when: '/aqueducts/gradient\n',
    },
    answer({
      relevance: 'medium',
      reliability: 'high',
      summary: 'An aqueduct page.',
      keyFacts: [],
      promisingLinks: [],
    }),
  ],
  coverage_evaluation: [
    {
      content: JSON.stringify({
        coverage: 'Moderate',
        assessments: [],
        gaps: 'Segovia',
        shouldContinue: true,
        nextQueries: ['Segovia aqueduct arches'],
        newQuestions: [],
      }),
    },
    answer({ coverage: 'Solid', assessments: [], gaps: '', shouldContinue: false, nextQueries: [], newQuestions: [] }),
  ],
  research_report: [answer({ report: '# Roman aqueducts\n\nThey flowed by gravity [1]. Some still stand [2].' })],
  research_answer: [answer({ report: 'They flowed by gravity [1]. Some still stand [2].' })],
  report_review: [
    { content: JSON.stringify({ approved: false, score: 5, observation: 'Thin', feedback: 'Say which survive.' }) },
    answer({ approved: true, score: 8, observation: 'Good', feedback: '' }),
  ],
});

/** An automate task that searches, opens a product, extracts, and has its first answer sent back. */
const automateReplies = (): Record<string, FormatReply[]> => ({
  automate_plan: [answer({ plan: 'Search, open, extract', successCriteria: 'The price', actionItems: [] })],
  automate_action: [
    decide('Webloom Test Shop', { action: 'fill', ref: '{{ref:searchbox "Search products"}}', value: 'aurora' }),
    decide('Webloom Test Shop', { action: 'click', ref: '{{ref:button "Search"}}' }),
    decide('Results for', { action: 'click', ref: '{{ref:link "Aurora Wireless Headphones"}}' }),
    decide('AUR-HP-001', { action: 'done', text: 'No idea' }),
    decide('AUR-HP-001', { action: 'extract', text: 'the price' }),
    { ...decide('AUR-HP-001', { action: 'done', text: 'It costs €129.00' }), keep: true },
  ],
  automate_extraction: [answer({ json: '{"price":"€129.00"}' })],
  automate_validation: [
    {
      when: 'No idea',
      content: JSON.stringify({ completionQuality: 'failed', observation: 'No price', feedback: 'Read it' }),
    },
    answer({ completionQuality: 'complete', observation: 'The price', feedback: '' }),
  ],
});

/** A checkout that asks the caller for the card, then places the order. */
const checkoutReplies = (): Record<string, FormatReply[]> => ({
  automate_plan: [answer({ plan: 'Fill and order', successCriteria: 'An order number', actionItems: [] })],
  automate_action: [
    decide('Place order', { action: 'request_input', ref: '{{ref:textbox "Card number"}}', text: 'Payment card' }),
    decide('Place order', { action: 'click', ref: '{{ref:button "Place order"}}' }),
    { ...decide('', { action: 'done', text: 'Ordered' }), keep: true },
  ],
  automate_validation: [answer({ completionQuality: 'complete', observation: 'Ordered', feedback: '' })],
});

const RECORDINGS: Recording[] = [
  { name: 'extractMarkdown-min', route: '/extract/markdown', body: (f) => ({ url: f.url('/article'), effort: 'min' }) },
  {
    name: 'extractMarkdown-standard-fetched',
    route: '/extract/markdown',
    body: (f) => ({ url: f.url('/article'), effort: 'standard' }),
  },
  {
    name: 'extractMarkdown-standard-blocked-rendered',
    route: '/extract/markdown',
    body: (f) => ({ url: f.url('/gate'), effort: 'standard' }),
  },
  {
    name: 'extractMarkdown-standard-script-shell-rendered',
    route: '/extract/markdown',
    body: (f) => ({ url: f.url('/shell'), effort: 'standard' }),
  },
  {
    name: 'extractMarkdown-max',
    route: '/extract/markdown',
    body: (f) => ({ url: f.url('/article'), effort: 'max', content: 'full' }),
  },
  {
    name: 'extractJson-repair',
    route: '/extract/json',
    body: (f) => ({ url: f.url('/article'), effort: 'min', json_schema: PRODUCT_SCHEMA }),
    replies: [INVALID_ANSWER, VALID_ANSWER],
  },
  {
    name: 'generateJson-repair',
    route: '/generate/json',
    body: (f) => ({
      url: f.url('/article'),
      effort: 'standard',
      json_schema: PRODUCT_SCHEMA,
      instructions: 'The product name and its price in euros.',
    }),
    replies: [INVALID_ANSWER, VALID_ANSWER],
  },
  {
    name: 'extractJson-repairs-exhausted',
    route: '/extract/json',
    body: (f) => ({ url: f.url('/article'), effort: 'min', json_schema: PRODUCT_SCHEMA }),
    replies: [INVALID_ANSWER, INVALID_ANSWER, INVALID_ANSWER],
    status: 500,
  },
  {
    name: 'extractJson-chunks',
    route: '/extract/json',
    body: (f) => ({ url: f.url('/fleet'), effort: 'min', json_schema: FLEET_SCHEMA }),
  },
  {
    name: 'research-fast',
    route: '/research',
    body: () => ({ query: 'How did Roman aqueducts carry water?' }),
    byFormat: researchReplies,
  },
  {
    name: 'research-balanced-revised',
    route: '/research',
    body: () => ({ query: 'How did Roman aqueducts carry water?', mode: 'balanced' }),
    byFormat: researchReplies,
  },
  {
    name: 'research-no-sources',
    route: '/research',
    body: () => ({ query: 'xyzzy plugh' }),
    byFormat: (corpus) => ({
      ...researchReplies(corpus),
      research_plan: [
        answer({ objective: 'o', plan: 'p', complexity: 'simple', questions: [], queries: ['xyzzy plugh'] }),
      ],
    }),
  },
  {
    name: 'automate-extract-revalidated',
    route: '/automate',
    body: (shop) => ({ task: 'Find the price of the Aurora headphones', url: shop.url('/') }),
    byFormat: automateReplies,
  },
  {
    name: 'automate-interactive-answered',
    route: '/automate',
    body: (shop) => ({ task: 'Buy the Aurora headphones', url: shop.url('/checkout'), interactive: true }),
    byFormat: checkoutReplies,
    input: (request) => ({
      fields: [
        { ref: request.fields.find((field) => field.label === 'Card number')!.ref, value: '4111 1111 1111 1111' },
        { ref: request.fields.find((field) => field.label === 'CVC')!.ref, value: '123' },
      ],
    }),
  },
];

async function record(stack: Stack, client: Client, pages: Pages, recording: Recording): Promise<void> {
  const byFormat = recording.byFormat?.(pages);
  await fetch(`${stack.modelUrl}/__control/script`, {
    method: 'POST',
    body: JSON.stringify({ replies: recording.replies ?? [], byFormat }),
  });
  const response = await fetch(`${stack.apiUrl}${recording.route}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...recording.body(pages), ...(recording.route === '/automate' ? {} : { nocache: true }) }),
  });
  const workflowId = response.headers.get('x-workflow-id');
  // An event stream is read to its end: the run is over when it ends.
  const text = recording.input ? await answerInput(stack, response, recording.input) : await response.text();
  if (response.status !== (recording.status ?? 200) || !workflowId)
    throw new Error(`${recording.name}: HTTP ${response.status} ${text}`);
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  await writeFile(path.join(HISTORIES, `${recording.name}.json`), `${historyToJSON(history)}\n`);
  console.log(`${recording.name}: ${history.events?.length} events (${workflowId})`);
}

/** Reads an automate stream to its end, answering its input request as it comes. */
async function answerInput(
  stack: Stack,
  response: Response,
  input: (request: InputRequest) => Record<string, unknown>,
): Promise<string> {
  const events: string[] = [];
  for await (const { event, data } of sseMessages(response)) {
    if (!event) continue;
    events.push(event);
    if (event !== 'interactive:form_data:request') continue;
    const request = JSON.parse(data ?? '{}') as InputRequest;
    const answered = await fetch(`${stack.apiUrl}/automate/${request.requestId}/input`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(input(request)),
    });
    if (answered.status !== 202) throw new Error(`input answer: HTTP ${answered.status}`);
  }
  return events.join(' ');
}

/** `npm run histories:record -- research` records only the recordings whose names start so. */
const ONLY = process.argv.slice(2);

async function main(): Promise<void> {
  const corpus = await startResearchCorpus();
  const search = await startSearchStandIn(corpus);
  const stack = await startStack(path.join(projectRoot(), 'data', 'history-logs'), { SEARXNG_URL: search.baseUrl });
  const fixtures = await startFixtureServer({
    '/article': html(ARTICLE),
    '/shell': html(SCRIPT_SHELL),
    '/gate': (req, res) => {
      const passed = /(^|;\s*)passed=1/.test(req.headers.cookie ?? '');
      res.writeHead(passed ? 200 : 403, { 'content-type': 'text/html' }).end(passed ? ARTICLE : CHALLENGE);
    },
    '/fleet': html(FLEET),
  });
  const shop = await startAutomateSite();
  const shopPages: Pages = { url: (pathname) => `${shop.url}${pathname}` };
  const connection = await Connection.connect({ address: stack.temporalAddress });
  try {
    // Histories are kept as Temporal stores them (encrypted); the replay test decodes them with this key.
    const client = new Client({ connection, namespace: stack.namespace, dataConverter: testDataConverter });
    await mkdir(HISTORIES, { recursive: true });
    for (const recording of RECORDINGS) {
      if (ONLY.length > 0 && !ONLY.some((prefix) => recording.name.startsWith(prefix))) continue;
      const pages = { '/research': corpus, '/automate': shopPages }[recording.route] ?? fixtures;
      await record(stack, client, pages, recording);
    }
  } finally {
    await connection.close();
    await shop.close();
    await fixtures.close();
    await stopStack(stack);
    await search.close();
    await corpus.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
