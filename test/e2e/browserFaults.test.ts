import { readdirSync, readFileSync } from 'node:fs';
import type { AutomateEvents } from '../../src/events/automate';
import { apiKey, apiUrl } from '../support/api';
import { agentDecision, decide } from '../support/agentScript';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import type { FormatReply, StandInScript } from '../support/modelStandIn';
import { recordReliability, type ReliabilityRow } from '../support/reliabilityRecord';
import { SseStream } from '../support/sseClient';

/**
 * Chromium failing under a running Automate task, through the shared stack's API and its browser
 * worker: its renderer or its whole browser killed, stopped (SIGSTOP: hung, not gone), a page that
 * holds its main thread, a page that allocates without end. Each task must go on in a new session
 * or end cleanly, in bounded time, and the worker must serve the next task. Each row's outcome goes
 * to data/reliability/browser-faults.json.
 */

/** How long a task may take from the fault to its last event. */
const BOUND_MS = 45_000;
/** The agent waits this long at a step: the fault is injected, or takes effect, meanwhile. */
const WAIT_S = 3;

let site: FixtureServer;
const rows: ReliabilityRow[] = [];
/** Processes stopped by a row, continued (or killed) after it whatever its outcome. */
const stopped = new Set<number>();

const BUSY_SCRIPT = 'setInterval(() => { for (const end = Date.now() + 60000; Date.now() < end; ); }, 50)';
// 16 MB more every 50 ms, kept, up to 3 GB: array buffers, outside the JavaScript heap's cap.
const HOG_SCRIPT =
  'const kept = []; const grow = setInterval(() => { kept.push(new Uint8Array(16 << 20).fill(1)); if (kept.length >= 192) clearInterval(grow); }, 50)';

beforeAll(async () => {
  site = await startFixtureServer({
    '/start': html(
      `<!doctype html><title>Fault start</title><h1>Fault start</h1>
<button onclick="${BUSY_SCRIPT}">Freeze</button>
<button onclick="${HOG_SCRIPT}">Hog</button>`,
    ),
    '/hog': html(`<!doctype html><title>Hog</title><h1>Hog</h1><script>${HOG_SCRIPT}</script>`),
  });
});

afterAll(async () => {
  for (const pid of stopped) signal(pid, 'SIGCONT');
  recordReliability('browser-faults', rows);
  // The stand-in is shared: the next file must not inherit this one's answers.
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: '{"replies":[]}' });
  await site?.close();
});

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already.
  }
}

function procText(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}

/**
 * The shared stack's Chromium: each browser a worker launched (its command line carries the pool's
 * `--webloom-browser=` marker) and the renderers under it. Found among the descendants of the
 * process that started the stack, leaving out Jest's workers, so no other stack's browser on this
 * machine is touched: not even one of the `npm start` stacks that files running beside this one
 * start from their Jest worker, another child of that process.
 */
function stackChromium(): { browsers: number[]; renderers: number[] } {
  const parentOf = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = procText(`/proc/${entry}/stat`);
    if (stat) parentOf.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
  }
  const apiPid = Number(process.env.TEST_API_PID);
  const root = parentOf.get(apiPid) ?? process.pid;
  const childrenOf = new Map<number, number[]>();
  for (const [pid, ppid] of parentOf) childrenOf.set(ppid, [...(childrenOf.get(ppid) ?? []), pid]);
  const args = (pid: number) => procText(`/proc/${pid}/cmdline`).split(/[\0 ]/);
  const jestWorker = (pid: number) => args(pid).some((arg) => /\/jest-worker\/build\/.*processChild\.js$/.test(arg));
  const descendants = (pid: number): number[] => {
    const found: number[] = [];
    for (let next = [pid]; next.length > 0;) {
      next = next.flatMap((p) => childrenOf.get(p) ?? []).filter((child) => !jestWorker(child));
      found.push(...next);
    }
    return found;
  };
  const marked = (pid: number) => args(pid).some((arg) => arg.startsWith('--webloom-browser='));
  const browsers = descendants(root).filter((pid) => marked(pid) && !marked(parentOf.get(pid) ?? 0));
  const renderers = browsers.flatMap(descendants).filter((pid) => args(pid).includes('--type=renderer'));
  return { browsers, renderers };
}

async function script(byFormat: Record<string, FormatReply[]>): Promise<void> {
  const body: StandInScript = {
    replies: [],
    byFormat: {
      automate_plan: [
        {
          keep: true,
          content: JSON.stringify({ plan: 'Look, then answer', successCriteria: 'An answer', actionItems: [] }),
        },
      ],
      automate_validation: [
        {
          keep: true,
          content: JSON.stringify({ completionQuality: 'complete', observation: 'fine', feedback: '' }),
        },
      ],
      ...byFormat,
    },
  };
  await fetch(`${process.env.TEST_MODEL_URL}/__control/script`, { method: 'POST', body: JSON.stringify(body) });
}

interface Event {
  event: string;
  data: Record<string, unknown>;
}

const dataOf = <E extends keyof AutomateEvents>(events: Event[], name: E) =>
  events.filter((event) => event.event === name).map((event) => event.data as unknown as AutomateEvents[E]);

interface Run {
  events: Event[];
  /** From the fault to the stream's end. */
  afterFaultMs: number;
}

/**
 * Runs a task on the row's start page whose agent takes the row's steps, then answers done (or
 * its `last` step, for good); the fault comes once the stream shows the row's `when`. The task's
 * stream, to its end.
 */
async function runWithFault(task: string, row: FaultRow): Promise<Run> {
  const last = row.last ?? { action: 'done', text: `${task}: finished` };
  await script({
    automate_action: [
      ...row.steps.map((step) => decide(task, step)),
      { when: task, keep: true, content: agentDecision(last) },
    ],
  });
  const stream = await SseStream.open(`${apiUrl()}/automate`, {
    key: apiKey(),
    method: 'POST',
    body: { task, url: site.url(row.start ?? '/start'), maxIterations: 12, maxValidationAttempts: 1 },
  });
  expect(stream.response.status).toBe(200);
  await stream.until((s) => s.events.some((m) => m.event === row.when), 60_000);
  const faultAt = Date.now();
  await row.inject();
  await stream.until((s) => s.events.some((m) => m.event === 'done' || m.event === 'error'), BOUND_MS + 30_000);
  await stream.finished;
  const events = stream.events.map((m) => ({ event: m.event!, data: JSON.parse(m.data ?? '{}') }));
  return { events, afterFaultMs: Date.now() - faultAt };
}

/** What the stream told, in a few words, and the figures of the row. */
function outcomeOf(run: Run): { outcome: string; reconnects: number } {
  const complete = dataOf(run.events, 'complete')[0];
  const reconnects = dataOf(run.events, 'browser:reconnected').length;
  const last = run.events.at(-1)?.event;
  const outcome = complete
    ? `${complete.success ? 'completed' : `failed cleanly (${complete.error?.code})`}, ${reconnects} new session(s)`
    : `ended with ${last}`;
  return { outcome, reconnects };
}

/** A plain task after the fault: the worker still serves. */
async function nextRunSucceeds(): Promise<boolean> {
  const task = `plain task after a fault ${rows.length}`;
  await script({
    automate_action: [{ when: task, keep: true, content: agentDecision({ action: 'done', text: 'ok' }) }],
  });
  const stream = await SseStream.open(`${apiUrl()}/automate`, {
    key: apiKey(),
    method: 'POST',
    body: { task, url: site.url('/start'), maxIterations: 2, maxValidationAttempts: 1 },
  });
  const ended = await stream
    .until((s) => s.events.some((m) => m.event === 'done' || m.event === 'error'), BOUND_MS)
    .then(
      () => true,
      () => false,
    );
  stream.abort();
  const complete = stream.events.find((m) => m.event === 'complete');
  return ended && (JSON.parse(complete?.data ?? '{}') as { success?: boolean }).success === true;
}

interface FaultRow {
  fault: string;
  /** The task's start page, /start unless given. */
  start?: string;
  /** The agent's steps before it answers; the fault comes during them. */
  steps: Record<string, unknown>[];
  /** The agent's step after those, every time: done unless given. */
  last?: Record<string, unknown>;
  when: keyof AutomateEvents;
  inject: () => void | Promise<void>;
  /** How the task must end (see outcomeOf). */
  expected: RegExp;
}

/** The task completed in the session it had. */
const WENT_ON = /^completed, /;
/** The task completed, in a new session. */
const REPLACED = /^completed, [1-9]/;

const waitFirst = { action: 'wait', seconds: WAIT_S };

const FAULTS: FaultRow[] = [
  {
    fault: 'renderer killed (SIGKILL)',
    steps: [waitFirst],
    when: 'agent:waiting',
    inject: () => stackChromium().renderers.forEach((pid) => signal(pid, 'SIGKILL')),
    expected: REPLACED,
  },
  {
    fault: 'browser killed (SIGKILL)',
    steps: [waitFirst],
    when: 'agent:waiting',
    inject: () => stackChromium().browsers.forEach((pid) => signal(pid, 'SIGKILL')),
    expected: REPLACED,
  },
  {
    fault: 'renderer stopped (SIGSTOP)',
    steps: [waitFirst],
    when: 'agent:waiting',
    inject: () =>
      stackChromium().renderers.forEach((pid) => {
        stopped.add(pid);
        signal(pid, 'SIGSTOP');
      }),
    expected: WENT_ON,
  },
  {
    fault: 'browser stopped (SIGSTOP)',
    // The page does not answer the look after the first wait; the second outlasts the browser's time to answer.
    steps: [waitFirst, { action: 'wait', seconds: 15 }],
    when: 'agent:waiting',
    inject: () =>
      stackChromium().browsers.forEach((pid) => {
        stopped.add(pid);
        signal(pid, 'SIGSTOP');
      }),
    expected: REPLACED,
  },
  {
    fault: 'page holds its main thread',
    steps: [{ action: 'click', ref: '{{ref:button "Freeze"}}' }],
    when: 'browser:action_completed',
    inject: () => undefined,
    expected: WENT_ON,
  },
  {
    fault: 'page allocates without end',
    // The wait gives the memory watch time to end the renderer before the next look at the page.
    steps: [{ action: 'click', ref: '{{ref:button "Hog"}}' }, waitFirst],
    when: 'browser:action_completed',
    inject: () => undefined,
    expected: REPLACED,
  },
  {
    fault: 'start page allocates without end',
    start: '/hog',
    steps: [],
    // Never done: each new session at the page is ended again, until the task gives up on them.
    last: waitFirst,
    when: 'task:started',
    inject: () => undefined,
    expected: /^failed cleanly \(TASK_FAILED\), 3 new session/,
  },
];

describe('Chromium failing under an Automate task', () => {
  it.each(FAULTS.map((row) => [row.fault, row] as const))(
    '%s: the task goes on or fails cleanly, in bounded time, and the worker serves the next',
    async (_name, row) => {
      const run = await runWithFault(`Fault ${row.fault}`, row);
      const { outcome, reconnects } = outcomeOf(run);
      // A stopped process stays stopped through the next task: nobody sends a hung browser SIGCONT.
      const next = await nextRunSucceeds();
      for (const pid of stopped) signal(pid, 'SIGCONT');
      stopped.clear();
      const ok = row.expected.test(outcome) && run.afterFaultMs < BOUND_MS && next;
      rows.push({
        fault: row.fault,
        target: 'Automate',
        outcome: `${outcome}; next task ${next ? 'completed' : 'failed'}`,
        ok,
        figures: { secondsAfterFault: Math.round(run.afterFaultMs / 100) / 10, newSessions: reconnects },
      });
      expect({ outcome, afterFaultWithinBound: run.afterFaultMs < BOUND_MS, next }).toEqual({
        outcome: expect.stringMatching(row.expected),
        afterFaultWithinBound: true,
        next: true,
      });
    },
    150_000,
  );
});
