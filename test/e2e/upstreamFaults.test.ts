import type { AutomateEvents } from '../../src/events/automate';
import { ERRORS, type ErrorCode } from '../../src/errors';
import { apiKey } from '../support/api';
import { agentDecision } from '../support/agentScript';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply, ScriptedReply } from '../support/modelStandIn';
import { recordReliability, type ReliabilityRow } from '../support/reliabilityRecord';
import { PLAN, REPORT, scriptModel, volcanoScript } from '../support/researchScript';
import { startResearchStack, type ResearchStack } from '../support/researchStack';
import type { SearchFault } from '../support/searchStandIn';
import { SseStream } from '../support/sseClient';

/**
 * The model endpoint and the search engine failing under Research and Automate streams, through a
 * research stack's API (test/support/researchStack.ts) with short model and search time limits:
 * each fault either is retried away and the run completes, or the stream ends with a clean
 * failure, never hangs. What research.test.ts, refunds.test.ts (every search failing) and
 * structuredJson.test.ts (Extract JSON's model faults) already hold is not repeated. Every row
 * meets its fault through its own marker (in the query or the task, which the model's prompts and
 * the searches carry), so all run at once. Each row's outcome goes to
 * data/reliability/upstream-faults.json.
 */

/** The model's own time limit here; a late answer comes after twice that. */
const MODEL_TIMEOUT_MS = 3_000;
const SEARCH_TIMEOUT_MS = 1_500;
/** The longest any row's stream may stay open: the retries of its failing step, with their backoff. */
const STREAM_BOUND_MS = 120_000;

let stack: ResearchStack;
let site: FixtureServer;

beforeAll(async () => {
  stack = await startResearchStack('upstream', {
    MODEL_TIMEOUT_MS: String(MODEL_TIMEOUT_MS),
    SEARCH_TIMEOUT_MS: String(SEARCH_TIMEOUT_MS),
  });
  site = await startFixtureServer({ '/': html('<!doctype html><title>Calm</title><h1>A calm page</h1>') });
}, 120_000);

afterAll(async () => {
  // The stand-in is shared: the next file must not inherit this one's answers.
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: '{"replies":[]}' });
  await site?.close();
  await stack?.close();
});

const json = (value: unknown): string => JSON.stringify(value);

/** Model faults, as the stand-in plays them. */
const MODEL_FAULTS: Record<string, ScriptedReply> = {
  '500': { status: 500, message: 'upstream exploded' },
  'a late answer (past its time limit)': { delayMs: 2 * MODEL_TIMEOUT_MS, content: '{}' },
  "garbage (a proxy's HTML page)": { raw: '<html><body>502 Bad Gateway</body></html>' },
  'an answer cut mid-body': { cut: true },
  'an answer that stops mid-body, its connection open': { stall: true },
};

/** The run completes, or Research ends with this `error` event, or Automate's `complete` has this error. */
type Expected = { complete: true } | { error: ErrorCode } | { ending: string };

interface Row {
  fault: string;
  target: 'Research' | 'Automate';
  expected: Expected;
  /** Sets the row's fault up for the run that carries `marker`; the run's request body. */
  arrange(marker: string, byFormat: Record<string, FormatReply[]>): Record<string, unknown>;
}

const researchBody = (marker: string, mode = 'fast') => ({
  query: `How volcanic is Iceland? ${marker}`,
  mode,
  nocache: true,
});
const automateBody = (marker: string) => ({
  task: `Say what the page shows ${marker}`,
  url: site.url('/'),
  maxIterations: 1,
});

/**
 * A run whose model calls of one kind (`format`, the schema asked for) meet `reply`: the first
 * call only, or every one. Each call's prompt carries the query or the task, so the marker in it.
 */
function modelRow(
  target: Row['target'],
  format: string,
  name: string,
  reply: ScriptedReply,
  once: boolean,
  expected: Expected,
  body: (marker: string) => Record<string, unknown> = target === 'Research' ? researchBody : automateBody,
): Row {
  return {
    fault: `model ${once ? 'fails once' : 'fails every time'} (${format}): ${name}`,
    target,
    expected,
    arrange: (marker, byFormat) => {
      (byFormat[format] ??= []).push({ ...reply, when: marker, keep: !once });
      return body(marker);
    },
  };
}

/** A research run whose every search (its queries carry the marker) meets `fault`. */
function searchRow(fault: string, searchFault: SearchFault, expected: Expected): Row {
  return {
    fault: `search engine: ${fault}`,
    target: 'Research',
    expected,
    arrange: (marker, byFormat) => {
      stack.search.faultWhen(marker, searchFault);
      (byFormat.research_plan ??= []).push({
        when: marker,
        keep: true,
        content: json({ ...PLAN, queries: PLAN.queries.map((query) => `${query} ${marker}`) }),
      });
      return researchBody(marker);
    },
  };
}

const RESEARCH_FAILED: Expected = { error: 'research_failed' };
// A task whose every decision fails ends with its one step spent, the error in `complete`.
const OUT_OF_STEPS: Expected = { ending: 'MAX_ITERATIONS: the task was not done within maxIterations steps' };

const ROWS: Row[] = [
  modelRow('Research', 'research_plan', '500', MODEL_FAULTS['500']!, true, { complete: true }),
  modelRow('Research', 'research_plan', 'an answer cut mid-body', MODEL_FAULTS['an answer cut mid-body']!, true, {
    complete: true,
  }),
  ...Object.entries(MODEL_FAULTS).map(([name, reply]) =>
    modelRow('Research', 'research_plan', name, reply, false, RESEARCH_FAILED),
  ),
  modelRow('Research', 'research_answer', '500', MODEL_FAULTS['500']!, false, RESEARCH_FAILED),
  modelRow('Research', 'page_analysis', '500', MODEL_FAULTS['500']!, false, RESEARCH_FAILED, (marker) =>
    researchBody(marker, 'balanced'),
  ),
  searchRow('500 once', { status: 500, times: 1 }, { complete: true }),
  searchRow('no answer within its time limit', { delayMs: 3 * SEARCH_TIMEOUT_MS }, { error: 'search_failed' }),
  searchRow('half an answer, then nothing', { stall: true }, { error: 'search_failed' }),
  searchRow('garbage instead of JSON', { raw: '<html>oops' }, { error: 'search_failed' }),
  searchRow('JSON without a results list', { raw: '{"message":"rate limited"}' }, { error: 'search_failed' }),
  searchRow('no results', { empty: true }, { error: 'no_sources' }),
  modelRow('Automate', 'automate_action', '500', MODEL_FAULTS['500']!, true, { complete: true }),
  ...Object.entries(MODEL_FAULTS).map(([name, reply]) =>
    modelRow('Automate', 'automate_action', name, reply, false, OUT_OF_STEPS),
  ),
  modelRow('Automate', 'automate_plan', '500', MODEL_FAULTS['500']!, false, {
    ending: 'TASK_FAILED: the task failed',
  }),
];

interface Seen {
  events: { event: string; data: Record<string, unknown> }[];
  ms: number;
  /** The stream ended by itself within STREAM_BOUND_MS. */
  ended: boolean;
}

async function stream(target: Row['target'], body: Record<string, unknown>): Promise<Seen> {
  const started = Date.now();
  const opened = await SseStream.open(`${stack.base}/${target.toLowerCase()}`, { key: apiKey(), method: 'POST', body });
  expect(opened.response.status).toBe(200);
  const ended = await Promise.race([
    opened.finished.then(() => true),
    new Promise<boolean>((resolve) => setTimeout(() => resolve(false), STREAM_BOUND_MS).unref()),
  ]);
  if (!ended) opened.abort();
  const events = opened.events.map((m) => ({ event: m.event!, data: JSON.parse(m.data ?? '{}') }));
  return { events, ms: Date.now() - started, ended };
}

/** What the client saw at the end, in the words the row expects. */
function outcome(target: Row['target'], seen: Seen): string {
  if (!seen.ended) return `no end within ${STREAM_BOUND_MS / 1000} s`;
  const last = seen.events.at(-1);
  if (target === 'Research') {
    if (last?.event === 'complete') return 'completed';
    const error = (last?.data as { error?: { name?: string; message?: string } } | undefined)?.error;
    return last?.event === 'error' ? `error ${error?.name}: ${error?.message}` : `ended with ${last?.event}`;
  }
  const complete = seen.events.find((e) => e.event === 'complete')?.data as AutomateEvents['complete'] | undefined;
  if (last?.event !== 'done' || !complete) return `ended with ${last?.event}`;
  return complete.success ? 'completed' : `failed cleanly: ${complete.error?.code}: ${complete.error?.message}`;
}

function expectedOutcome(expected: Expected): string {
  if ('complete' in expected) return 'completed';
  if ('error' in expected) return `error ${expected.error}: ${ERRORS[expected.error].message}`;
  return `failed cleanly: ${expected.ending}`;
}

it('every model and search fault under Research and Automate is retried away or ends the stream cleanly', async () => {
  const byFormat: Record<string, FormatReply[]> = {};
  const bodies = ROWS.map((row, index) => row.arrange(`fault${index}x`, byFormat));
  // Every call that meets no fault of its row's gets an instant, valid answer.
  const answers: Record<string, FormatReply[]> = {
    ...volcanoScript({ research_answer: [{ content: json(REPORT), keep: true }] }),
    automate_plan: [{ keep: true, content: json({ plan: 'Read it', successCriteria: 'Said', actionItems: [] }) }],
    automate_action: [{ keep: true, content: agentDecision({ action: 'done', text: 'A calm page' }) }],
    automate_validation: [
      { keep: true, content: json({ completionQuality: 'complete', observation: 'fine', feedback: '' }) },
    ],
  };
  for (const [format, replies] of Object.entries(answers)) (byFormat[format] ??= []).push(...replies);
  await scriptModel(byFormat);
  const seen = await Promise.all(ROWS.map((row, index) => stream(row.target, bodies[index]!)));
  const results = ROWS.map((row, index) => ({
    fault: row.fault,
    target: row.target,
    outcome: outcome(row.target, seen[index]!),
    expected: expectedOutcome(row.expected),
  }));
  const rows: ReliabilityRow[] = results.map((result, index) => ({
    fault: result.fault,
    target: result.target,
    outcome: result.outcome,
    ok: result.outcome === result.expected,
    figures: { seconds: Math.round(seen[index]!.ms / 100) / 10, events: seen[index]!.events.length },
  }));
  recordReliability('upstream-faults', rows);
  expect(results.map(({ fault, target, outcome: got }) => ({ fault, target, outcome: got }))).toEqual(
    results.map(({ fault, target, expected }) => ({ fault, target, outcome: expected })),
  );
}, 180_000);
