import { Connection } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import { Pool } from 'pg';
import { decide } from './agentScript';
import { startAutomateSite, type AutomateSite } from './automateSite';
import { eventually } from './eventually';
import { startFixtureServer, type FixtureServer } from './fixtureServer';
import { FIXTURE_HOST, OTHER_FIXTURE_HOST } from './localStack';
import { startModelStandIn, type FormatReply, type StandInScript } from './modelStandIn';
import { startNpmStart, type NpmStart } from './npmStart';
import { startResearchCorpus } from './researchCorpus';
import { startSearchStandIn, type SearchStandIn } from './searchStandIn';
import { slowPages } from './slowPages';
import type { ReliabilityRow } from './reliabilityRecord';
import { sseMessages } from './sseClient';

/**
 * The fault matrix of issue #25: a fault (a process killed with SIGKILL, an API restarted, Temporal
 * stopped) lands while one run of each operation is under way, and each run is judged as its
 * client saw it. Every request completes or fails cleanly (the spec's status, an `error` event, or
 * the connection lost with the API that held it, whose run still ends and is charged once); every
 * event of a stream reaches the client exactly once, resuming with `Last-Event-ID` where the
 * connection broke, as the run's durable log shows; and each run is charged once at most, refunded
 * at most once, and only when it did not complete. The same matrix runs on `npm start`
 * (test/support/npmStart.ts) and on the cluster topology (test/support/localStack.ts): the
 * topology gives a `ChaosWorld`, the cell runner does the rest.
 */

export type ChaosOperation =
  | 'Extract Markdown'
  | 'Extract Markdown, rendered'
  | 'Extract JSON'
  | 'Research stream'
  | 'Automate stream'
  | 'Automate interactive, waiting for input';

export const ALL_OPERATIONS: ChaosOperation[] = [
  'Extract Markdown',
  'Extract Markdown, rendered',
  'Extract JSON',
  'Research stream',
  'Automate stream',
  'Automate interactive, waiting for input',
];

const EXTRACTIONS = ['Extract Markdown', 'Extract Markdown, rendered', 'Extract JSON'] as const;
type ExtractOperation = (typeof EXTRACTIONS)[number];

/** What one topology gives the matrix. */
export interface ChaosWorld {
  topology: 'dev' | 'cluster';
  /** Every API replica's base URL with /v1; runs start on the first, clients resume on the next. */
  apiBases: string[];
  temporalAddress: string;
  /** The billing store's connection string. */
  storeUrl: string;
  /** The model stand-in's origin (its /__control paths). */
  modelUrl: string;
  /** The slow pages the extractions read. */
  pages: FixtureServer;
  site: AutomateSite;
  /** A fresh organization's key per fault and operation, so each run's ledger stands apart. */
  organization(index: number, operation: ChaosOperation): { org: string; key: string };
}

/** A fault: what it does, which processes it hit; resolves once it is over (the process is gone, or back). */
export interface ChaosFault {
  name: string;
  /** Which process or processes, as the row reports it. */
  process: string;
  inject(): Promise<void>;
}

/** Every model answer takes this long, so model calls are in flight when the fault lands. */
const MODEL_DELAY_MS = 1_500;
/** The one slow step of the plain Automate task: its model call that ends the task. */
const AUTOMATE_DECISION_MS = 6_000;
/**
 * A run retried after its worker died waits out the heartbeat timeout (10 s) first; on two loaded
 * cores, several times over.
 */
const RUN_WITHIN_MS = 180_000;

const json = (value: unknown): string => JSON.stringify(value);
const ref = (role: string, name: string) => `{{ref:${role} "${name}"}}`;

/**
 * The model's answers for Extract JSON (`answer`) and a one-iteration Research run on the
 * corpus's volcano pages, each after `delayMs`, so model calls are in flight when a fault lands.
 */
export function slowModelScript(delayMs: number): Record<string, FormatReply[]> {
  const slow = (content: unknown): FormatReply[] => [{ content: json(content), keep: true, delayMs }];
  return {
    answer: slow({ title: 'Slow lamp' }),
    research_plan: slow({
      objective: 'Explain the volcanoes of Iceland.',
      plan: 'Cover the active systems and their eruptions.',
      complexity: 'moderate',
      questions: ['Why is Iceland volcanic?', 'Which eruptions mattered most?'],
      queries: ['Iceland volcanoes eruption'],
    }),
    page_analysis: slow({
      relevance: 'high',
      reliability: 'high',
      summary: 'An Icelandic volcano page.',
      keyFacts: ['Iceland has about 30 active volcanic systems.'],
      promisingLinks: [],
    }),
    coverage_evaluation: slow({
      coverage: 'Solid',
      assessments: [
        {
          question: 'Why is Iceland volcanic?',
          status: 'answered',
          findings: 'The Mid-Atlantic Ridge.',
        },
      ],
      gaps: '',
      shouldContinue: false,
      nextQueries: [],
      newQuestions: [],
    }),
    research_report: slow({
      report: '# Volcanoes of Iceland\n\nIceland lies on the Mid-Atlantic Ridge [1].',
    }),
    research_answer: slow({ report: 'Iceland lies on the Mid-Atlantic Ridge [1].' }),
    report_review: slow({
      approved: true,
      score: 8,
      observation: 'Sound.',
      feedback: '',
    }),
  };
}

/**
 * Every operation's answers at once, told apart by schema name and, for Automate, by what the
 * prompt holds: the plain task reads a product page and is done; the interactive one asks for
 * the card on the checkout form, and is done once the user has declined.
 */
export function chaosModelScript(): StandInScript {
  const slow = (content: unknown): FormatReply[] => [{ content: json(content), keep: true, delayMs: MODEL_DELAY_MS }];
  return {
    replies: [],
    byFormat: {
      ...slowModelScript(MODEL_DELAY_MS),
      automate_plan: slow({ plan: 'Do the task step by step', successCriteria: 'The task is done', actionItems: [] }),
      automate_validation: slow({ completionQuality: 'complete', observation: 'Done', feedback: '' }),
      automate_action: [
        { ...decide('the user declined', { action: 'done', text: 'No card given' }), keep: true },
        {
          ...decide('Place order', {
            action: 'request_input',
            ref: ref('textbox', 'Card number'),
            text: 'Payment card',
          }),
          keep: true,
        },
        { ...decide('SKU: ', { action: 'done', text: 'Read the price' }), keep: true, delayMs: AUTOMATE_DECISION_MS },
      ],
    },
  };
}

export async function scriptChaosModel(modelUrl: string): Promise<void> {
  const response = await fetch(`${modelUrl}/__control/script`, {
    method: 'POST',
    body: JSON.stringify(chaosModelScript()),
  });
  if (!response.ok) throw new Error(`the model stand-in refused the script: ${response.status}`);
}

interface StreamEvent {
  id: number;
  event: string;
  data: string;
}

/** A stream as its client saw it: every event with its id, across reconnections. */
interface FollowedStream {
  runId: string;
  events: StreamEvent[];
  /** How many times the client came back with `Last-Event-ID`. */
  resumes: number;
  /** Why each reconnection was needed: "connection lost", "ended without its last event". */
  breaks: string[];
}

type OnEvent = (event: StreamEvent) => void;

const TERMINAL = { research: ['complete', 'error'], automate: ['done', 'error'] } as const;

/** Reads one response's events into `into`, until it ends; whether it ended cleanly. */
async function readEvents(response: Response, into: StreamEvent[], onEvent?: OnEvent): Promise<string> {
  try {
    for await (const message of sseMessages(response)) {
      if (message.event === undefined) continue;
      const event = { id: Number(message.id), event: message.event, data: message.data ?? '' };
      into.push(event);
      onEvent?.(event);
    }
    return 'ended without its last event';
  } catch (err) {
    return `connection lost (${(err as Error).message})`;
  }
}

/**
 * Follows a streamed run to its end as a careful client does: whenever the connection breaks or
 * ends early, it comes back (on the next API replica, if any) with the last id it saw.
 */
async function follow(
  world: ChaosWorld,
  key: string,
  kind: keyof typeof TERMINAL,
  first: Response,
  onEvent?: OnEvent,
): Promise<FollowedStream> {
  const runId = first.headers.get('x-run-id') ?? '';
  const stream: FollowedStream = { runId, events: [], resumes: 0, breaks: [] };
  const deadline = Date.now() + RUN_WITHIN_MS;
  let response = first;
  for (;;) {
    const ended = await readEvents(response, stream.events, onEvent);
    const last = stream.events.at(-1)?.event;
    if (last && (TERMINAL[kind] as readonly string[]).includes(last)) return stream;
    stream.breaks.push(ended);
    if (Date.now() > deadline) throw new Error(`${kind} ${runId} did not end within ${RUN_WITHIN_MS} ms`);
    stream.resumes++;
    response = await eventually(
      async () => {
        const base = world.apiBases[stream.resumes % world.apiBases.length]!;
        const headers: Record<string, string> = { authorization: `Bearer ${key}` };
        const lastId = stream.events.at(-1)?.id;
        if (lastId !== undefined) headers['last-event-id'] = String(lastId);
        const again = await fetch(`${base}/runs/${encodeURIComponent(runId)}/events`, { headers });
        if (again.status === 200) return again;
        await again.body?.cancel();
        throw new Error(`resume answered ${again.status}`);
      },
      { what: `the API to take ${runId} back`, timeoutMs: 90_000, intervalMs: 250 },
    );
  }
}

/** The run's whole durable log, as any client reading it after its end gets it. */
async function durableLog(world: ChaosWorld, key: string, runId: string): Promise<StreamEvent[]> {
  // Asked until it answers: right after a fault the API may still be coming back (its store, say).
  return eventually(
    async () => {
      const response = await fetch(`${world.apiBases[0]}/runs/${encodeURIComponent(runId)}/events`, {
        headers: { authorization: `Bearer ${key}` },
      });
      if (response.status !== 200) throw new Error(`the log of ${runId} answered ${response.status}`);
      const events: StreamEvent[] = [];
      const ended = await readEvents(response, events);
      if (ended !== 'ended without its last event') throw new Error(`the log of ${runId}: ${ended}`);
      return events;
    },
    { what: `the durable log of ${runId}`, timeoutMs: 60_000, intervalMs: 500 },
  );
}

/** What one operation's client saw, before the ledger is read. */
interface Seen {
  operation: ChaosOperation;
  /** 200 with the page; a status and message; "connection lost"; the stream's last event. */
  outcome: string;
  /** Whether the client's part is as required (the ledger is checked after). */
  ok: boolean;
  figures: Record<string, number | string>;
}

/** A run under way: `midway` once a fault may land, `seen` once its client is done. */
interface Running {
  operation: ChaosOperation;
  midway: Promise<void>;
  seen: Promise<Seen>;
}

/** Compares what the client saw with the durable log: each event once, in order, none missing. */
async function judgeStream(
  world: ChaosWorld,
  key: string,
  operation: ChaosOperation,
  followed: FollowedStream,
  wanted: string,
): Promise<Seen> {
  const log = await durableLog(world, key, followed.runId);
  const ids = followed.events.map((event) => event.id);
  const duplicates = ids.length - new Set(ids).size;
  const logIds = new Set(log.map((event) => event.id));
  const missing = log.filter((event) => !ids.includes(event.id)).length;
  const foreign = ids.filter((id) => !logIds.has(id)).length;
  const same = json(followed.events) === json(log);
  const last = followed.events.at(-1)?.event ?? 'none';
  return {
    operation,
    outcome: `stream ended with ${last}${followed.resumes ? `, resumed ${followed.resumes}x with Last-Event-ID` : ''}`,
    ok: same && last === wanted,
    figures: {
      events: followed.events.length,
      logEvents: log.length,
      duplicates,
      missing,
      foreign,
      resumes: followed.resumes,
      ...(followed.breaks.length ? { breaks: followed.breaks.join('; ') } : {}),
    },
  };
}

function startExtraction(
  world: ChaosWorld,
  key: string,
  operation: ExtractOperation,
  id: string,
  requested: Set<string>,
): Running {
  const path = operation === 'Extract JSON' ? 'extract/json' : 'extract/markdown';
  const body =
    operation !== 'Extract JSON'
      ? {
          url: `${world.pages.url('/slow')}?id=${id}`,
          // max: rendered in Chromium by the browser worker, standard: fetched by the fetch worker.
          effort: operation === 'Extract Markdown' ? 'standard' : 'max',
          nocache: true,
        }
      : {
          url: `${world.pages.url('/slow')}?id=${id}`,
          json_schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] },
          nocache: true,
        };
  const seen = (async (): Promise<Seen> => {
    const started = Date.now();
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${world.apiBases[0]}/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      text = await response.text();
    } catch (err) {
      // The API that held the request died: its run goes on and is charged once (README, "Organizations").
      return {
        operation,
        outcome: `connection lost (${(err as Error).message})`,
        ok: true,
        figures: { ms: Date.now() - started, status: 'none' },
      };
    }
    const figures = { ms: Date.now() - started, status: response.status };
    let answer: { content?: string; title?: string; error?: unknown };
    try {
      answer = JSON.parse(text) as typeof answer;
    } catch {
      return { operation, outcome: `${response.status}, not JSON`, ok: false, figures };
    }
    if (response.status === 200) {
      const right =
        operation !== 'Extract JSON'
          ? (answer.content ?? '').includes(`Paragraph of slow page ${id},`)
          : answer.title === 'Slow lamp';
      return { operation, outcome: right ? '200 with the page' : '200, wrong content', ok: right, figures };
    }
    // A clean failure is the spec's error body.
    return {
      operation,
      outcome: `${response.status} ${String(answer.error)}`,
      ok: typeof answer.error === 'string' && response.status >= 400,
      figures,
    };
  })();
  const midway = eventually(() => requested.has(id), {
    what: `the page of ${operation} to be asked for`,
    timeoutMs: 60_000,
  });
  return { operation, midway: midway.then(() => undefined), seen };
}

async function openStream(world: ChaosWorld, key: string, path: string, body: unknown): Promise<Response> {
  const response = await fetch(`${world.apiBases[0]}/${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
  return response;
}

/** Resolves when `event` has been seen; `onEvent` feeds it. */
function waiter(names: string[]): { onEvent: OnEvent; reached: Promise<void> } {
  let resolve!: () => void;
  const reached = new Promise<void>((r) => (resolve = r));
  return { onEvent: ({ event }) => names.includes(event) && resolve(), reached };
}

function startResearch(world: ChaosWorld, key: string): Running {
  const operation: ChaosOperation = 'Research stream';
  const { onEvent, reached } = waiter(['planning:start']);
  const seen = (async () => {
    const first = await openStream(world, key, 'research', {
      query: 'How do the volcanoes of Iceland erupt?',
      mode: 'balanced',
      nocache: true,
    });
    const followed = await follow(world, key, 'research', first, onEvent);
    return judgeStream(world, key, operation, followed, 'complete');
  })();
  return {
    operation,
    midway: Promise.race([reached, seen.then(() => undefined)]),
    seen,
  };
}

function startAutomate(world: ChaosWorld, key: string): Running {
  const operation: ChaosOperation = 'Automate stream';
  const { onEvent, reached } = waiter(['task:started']);
  const seen = (async () => {
    const first = await openStream(world, key, 'automate', {
      task: 'Read the price of the Aurora headphones',
      url: `${world.site.url}/product/aurora`,
      maxIterations: 4,
    });
    const followed = await follow(world, key, 'automate', first, onEvent);
    return judgeStream(world, key, operation, followed, 'done');
  })();
  return {
    operation,
    midway: Promise.race([reached, seen.then(() => undefined)]),
    seen,
  };
}

/**
 * The interactive task stops at its input request; once the fault is over (`faultOver`), the
 * client declines it, on whichever API takes the answer, and the task ends.
 */
function startInteractive(world: ChaosWorld, key: string, faultOver: Promise<void>): Running {
  const operation: ChaosOperation = 'Automate interactive, waiting for input';
  let resolveAsked!: (requestId: string) => void;
  const asked = new Promise<string>((r) => (resolveAsked = r));
  let tries = 0;
  const seen = (async () => {
    const first = await openStream(world, key, 'automate', {
      task: 'Buy the Aurora headphones',
      url: `${world.site.url}/checkout?product=aurora`,
      interactive: true,
      maxIterations: 4,
    });
    const answering = (async () => {
      const requestId = await asked;
      await faultOver;
      await eventually(
        async () => {
          const base = world.apiBases[tries++ % world.apiBases.length]!;
          const response = await fetch(`${base}/automate/${encodeURIComponent(requestId)}/input`, {
            method: 'POST',
            headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
            body: JSON.stringify({ cancelled: true }),
          });
          await response.body?.cancel();
          if (response.status === 202) return true;
          throw new Error(`the input answer got ${response.status}`);
        },
        { what: `the input answer to ${requestId} to be taken`, timeoutMs: 90_000, intervalMs: 500 },
      );
    })();
    const followed = await follow(world, key, 'automate', first, ({ event, data }) => {
      if (event === 'interactive:form_data:request')
        resolveAsked((JSON.parse(data) as { requestId: string }).requestId);
    });
    await answering;
    const judged = await judgeStream(world, key, operation, followed, 'done');
    return { ...judged, figures: { ...judged.figures, inputTries: tries } };
  })();
  return {
    operation,
    midway: Promise.race([asked, seen]).then(() => undefined),
    seen,
  };
}

interface LedgerRow {
  run_key: string;
  kind: string;
  amount: number;
  settled: boolean;
}

/** The organization's charges and refunds by run, once every charge is settled. */
async function settledLedger(storeUrl: string, org: string): Promise<Map<string, LedgerRow[]>> {
  const pool = new Pool({ connectionString: storeUrl, max: 1 });
  try {
    const rows = await eventually(
      async () => {
        const { rows } = await pool.query<LedgerRow>(
          `SELECT run_key, kind, amount, settled_at IS NOT NULL AS settled FROM ledger
           WHERE organization = $1 AND run_key IS NOT NULL ORDER BY id`,
          [org],
        );
        return rows.every((row) => row.kind !== 'charge' || row.settled) && rows;
      },
      { what: `every charge of ${org} to be settled`, timeoutMs: 90_000, intervalMs: 500 },
    );
    const byRun = new Map<string, LedgerRow[]>();
    for (const row of rows) byRun.set(row.run_key, [...(byRun.get(row.run_key) ?? []), row]);
    return byRun;
  } finally {
    await pool.end();
  }
}

/** How each run ended in Temporal: its status alone, which needs none of the payload keys. */
async function runStatus(temporalAddress: string, workflowIds: string[]): Promise<Map<string, string>> {
  const connection = await Connection.connect({ address: temporalAddress });
  try {
    const statuses = new Map<string, string>();
    for (const workflowId of workflowIds) {
      const { workflowExecutionInfo } = await connection.workflowService.describeWorkflowExecution({
        namespace: 'default',
        execution: { workflowId },
      });
      const status = workflowExecutionInfo?.status ?? 0;
      statuses.set(
        workflowId,
        temporal.api.enums.v1.WorkflowExecutionStatus[status]!.replace('WORKFLOW_EXECUTION_STATUS_', ''),
      );
    }
    return statuses;
  } finally {
    await connection.close();
  }
}

export interface CellOptions {
  operations?: ChaosOperation[];
  /** Which organizations of the world this fault bills (one per operation). */
  index: number;
  requested: Set<string>;
}

/**
 * One fault against one run of each operation: starts them, lands the fault once every run is
 * midway, follows every client to its end, then reads the ledger. One row per operation.
 */
export async function runFault(world: ChaosWorld, fault: ChaosFault, options: CellOptions): Promise<ReliabilityRow[]> {
  const operations = options.operations ?? ALL_OPERATIONS;
  const account = (operation: ChaosOperation) => world.organization(options.index, operation);
  let faultDone!: () => void;
  const faultOver = new Promise<void>((r) => (faultDone = r));
  const running: Running[] = [];
  // The interactive task first, since it waits longest for its request; the extractions last,
  // since their runs are the shortest.
  if (operations.includes('Automate interactive, waiting for input'))
    running.push(startInteractive(world, account('Automate interactive, waiting for input').key, faultOver));
  if (operations.includes('Research stream')) running.push(startResearch(world, account('Research stream').key));
  if (operations.includes('Automate stream')) running.push(startAutomate(world, account('Automate stream').key));
  await Promise.all(running.map((run) => run.midway));
  for (const operation of EXTRACTIONS)
    if (operations.includes(operation)) {
      const { org, key } = account(operation);
      running.push(startExtraction(world, key, operation, org, options.requested));
    }
  await Promise.all(running.map((run) => run.midway));
  const injectedAt = Date.now();
  await fault.inject();
  faultDone();
  const seen = await Promise.all(
    running.map((run) =>
      run.seen.catch((err: unknown): Seen => ({
        operation: run.operation,
        outcome: `client failed: ${(err as Error).message}`,
        ok: false,
        figures: {},
      })),
    ),
  );
  const recoveredMs = Date.now() - injectedAt;
  return Promise.all(
    seen.map(async (one): Promise<ReliabilityRow> => {
      // Each operation bills its own organization: its ledger holds this run alone, also when
      // the client never learned the run's id (the API died holding the request).
      const ledger = await settledLedger(world.storeUrl, account(one.operation).org);
      const runs = [...ledger.keys()];
      const statuses = await runStatus(world.temporalAddress, runs);
      const entries = runs.flatMap((run) => ledger.get(run)!);
      const charges = entries.filter((entry) => entry.kind === 'charge').length;
      const refunds = entries.filter((entry) => entry.kind === 'refund').length;
      const status = runs.map((run) => statuses.get(run) ?? 'unknown').join(',') || 'none';
      // A run is charged once; a refund only for a run that did not complete.
      const billedOk = runs.length === 1 && charges === 1 && refunds <= (status === 'COMPLETED' ? 0 : 1);
      return {
        fault: `${fault.name} ${fault.process}`,
        target: one.operation,
        outcome: `${one.outcome}; run ${status.toLowerCase()}, ${charges} charge(s), ${refunds} refund(s)`,
        ok: one.ok && billedOk,
        figures: {
          topology: world.topology,
          process: fault.process,
          runs: runs.length,
          charges,
          refunds,
          recoveredMs,
          ...one.figures,
        },
      };
    }),
  );
}

/** `npm start` with everything the matrix's operations need, and its own stand-ins around it. */
export interface NpmStartWorld extends ChaosWorld {
  stack: NpmStart;
  requested: Set<string>;
  close(): Promise<void>;
}

/** Faults a run of the matrix can land: 7 on npm start, 9 on the cluster, with room. */
const FAULTS = 20;
const slug = (operation: ChaosOperation) => operation.toLowerCase().replace(/[^a-z]+/g, '-');

/** The organization of the `index`th fault's run of `operation`, and its key, both in `CHAOS_API_KEYS`. */
export const CHAOS_ORGANIZATION = (index: number, operation: ChaosOperation) => ({
  org: `chaos-${index}-${slug(operation)}`,
  key: `chaos-key-${index}-${slug(operation)}`,
});

/** Keys for `API_KEYS`: one organization per fault and operation, each opened with 1,000,000 credits. */
export const CHAOS_API_KEYS = Array.from({ length: FAULTS }, (_, i) =>
  ALL_OPERATIONS.map((operation) => CHAOS_ORGANIZATION(i, operation)),
)
  .flat()
  .map(({ org, key }) => `${key}:${org}`)
  .join(',');

/** Settings both topologies run the matrix with. */
export function chaosEnv(search: SearchStandIn): NodeJS.ProcessEnv {
  return {
    API_KEYS: CHAOS_API_KEYS,
    ALLOW_INTERNAL_HOSTS: `${FIXTURE_HOST},${OTHER_FIXTURE_HOST}`,
    SEARXNG_URL: search.baseUrl,
    // Streamed runs are settled by the sweep: often, so a cell's ledger is read soon after.
    BILLING_SETTLE_INTERVAL_MS: '500',
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_STREAMS: '100000',
  };
}

export interface StandIns {
  pages: FixtureServer;
  corpus: FixtureServer;
  search: SearchStandIn;
  site: AutomateSite;
  requested: Set<string>;
  close(): Promise<void>;
}

export async function startStandIns(): Promise<StandIns> {
  const requested = new Set<string>();
  const [pages, corpus, site] = await Promise.all([
    startFixtureServer(slowPages(requested)),
    startResearchCorpus(),
    startAutomateSite(),
  ]);
  const search = await startSearchStandIn(corpus);
  return {
    pages,
    corpus,
    search,
    site,
    requested,
    close: async () => {
      await Promise.all([pages.close(), search.close(), site.close()]);
      await corpus.close();
    },
  };
}

export async function startNpmStartWorld(name: string): Promise<NpmStartWorld> {
  const [standIns, model] = await Promise.all([startStandIns(), startModelStandIn()]);
  let stack: NpmStart;
  try {
    stack = await startNpmStart(name, {
      ...chaosEnv(standIns.search),
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: model.apiKey,
      OPENAI_MODEL: model.model,
    });
  } catch (err) {
    await Promise.all([standIns.close(), model.close()]);
    throw err;
  }
  const modelUrl = model.baseUrl.replace(/\/v1$/, '');
  await scriptChaosModel(modelUrl);
  // Up is not ready: a fault landing before every worker polls would test the start, not the fault.
  await eventually(async () => (await fetch(`${stack.origin}/ready`)).ok, {
    what: 'every worker of the npm start stack to poll',
    timeoutMs: 90_000,
    intervalMs: 200,
  });
  return {
    topology: 'dev',
    apiBases: [`${stack.origin}/v1`],
    temporalAddress: `127.0.0.1:${stack.temporalPort}`,
    storeUrl: stack.storeUrl,
    modelUrl,
    pages: standIns.pages,
    site: standIns.site,
    requested: standIns.requested,
    organization: CHAOS_ORGANIZATION,
    stack,
    close: async () => {
      await stack.stop();
      await Promise.all([standIns.close(), model.close()]);
    },
  };
}

/** The processes of `npm start` by the command line its supervisor runs them with. */
export const NPM_START_PROCESSES = {
  api: /api\/main\.js/,
  workflowWorker: /workers\/main\.js workflow/,
  fetchWorker: /workers\/main\.js fetch,browser/,
  temporal: /server start-dev/,
  store: /embeddedStoreMain\.js/,
};

/** SIGKILL (or another signal) to one process of `npm start`; over once its supervisor has started it again. */
export function npmStartKill(
  stack: NpmStart,
  name: string,
  processName: string,
  command: RegExp,
  signal: NodeJS.Signals = 'SIGKILL',
  whileDown: () => Promise<void> = async () => undefined,
): ChaosFault {
  return {
    name,
    process: processName,
    inject: async () => {
      const pid = await stack.childPid(command);
      process.kill(pid, signal);
      await whileDown();
      await eventually(async () => (await stack.childPid(command)) !== pid, {
        what: `${processName} to be started again`,
        timeoutMs: 90_000,
        intervalMs: 200,
      });
    },
  };
}
