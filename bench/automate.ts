import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startAutomateSite } from '../test/support/automateSite';
import { projectRoot, startStack, stopStack, type Stack } from '../test/support/localStack';
import { agentDecision } from '../test/support/agentScript';
import type { FormatReply } from '../test/support/modelStandIn';
import { sseMessages } from '../test/support/sseClient';
import { fmt, percentile } from './common';

/**
 * `npm run bench:automate`: Automate on the shop fixture site with an instant model stand-in, so
 * what is measured is the service: each step's observation (accessibility snapshot), the action
 * in Chromium, the model-tier round trip and Temporal. It prints
 * - the per-step time (one `agent:step` to the next, as the workflow records them), p50 and p95,
 *   of steps whose action stays on the page (typing) and of steps that load a page (a click on
 *   a link, a navigation);
 * - the memory a browser session costs: the browser worker's process tree (Node and Chromium)
 *   with 1, 4 and 8 tasks holding a session at once, minus the tree with none, per session.
 */

const STEPS = Number(process.env.BENCH_STEPS ?? 40);
const SESSION_COUNTS = [1, 4, 8];

const PLAN: FormatReply = {
  keep: true,
  content: JSON.stringify({ plan: 'Browse', successCriteria: 'None', actionItems: [] }),
};

async function script(stack: Stack, actions: FormatReply[]): Promise<void> {
  await fetch(`${stack.modelUrl}/__control/script`, {
    method: 'POST',
    body: JSON.stringify({ replies: [], byFormat: { automate_plan: [PLAN], automate_action: actions } }),
  });
}

/** Runs a task to its end, calling `onEvent` for each event; the workflow timestamps of its steps. */
async function automate(
  stack: Stack,
  body: Record<string, unknown>,
  onEvent: (event: string) => void = () => undefined,
): Promise<number[]> {
  let ending = '';
  let lastError = '';
  const response = await fetch(`${stack.apiUrl}/automate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const steps: number[] = [];
  let last = '';
  for await (const { event, data } of sseMessages(response)) {
    if (!event || !data) continue;
    last = event;
    onEvent(event);
    if (event === 'agent:step') steps.push((JSON.parse(data) as { timestamp: number }).timestamp);
    if (event === 'browser:action_completed') lastError = (JSON.parse(data) as { error?: string }).error ?? lastError;
    if (event === 'complete') ending = (JSON.parse(data) as { error?: { code: string } }).error?.code ?? 'success';
  }
  // Every task here runs until its iterations are spent: anything else means steps failed.
  if (last !== 'done' || ending !== 'MAX_ITERATIONS')
    throw new Error(`the task ended with ${last} (${ending}); the last failed action: ${lastError}`);
  return steps;
}

/** The times between consecutive steps of three tasks. */
async function stepTimes(stack: Stack, body: Record<string, unknown>): Promise<number[]> {
  const gaps: number[] = [];
  for (let run = 0; run < 3; run++) {
    const steps = await automate(stack, body);
    for (let i = 1; i < steps.length; i++) gaps.push(steps[i]! - steps[i - 1]!);
  }
  return gaps;
}

/** A process's proportional set size in kB: its own pages, and its share of those it shares. */
function pssKb(pid: number): number {
  try {
    return Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

/**
 * Memory of a process and all its descendants (Node and Chromium's processes), in MB, as PSS:
 * Chromium's processes share most of their pages, which RSS would count once per process.
 */
function treeMb(root: number): number {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((line) => line.trim().split(/\s+/).map(Number) as [number, number]);
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of rows) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let total = 0;
  for (const queue = [root]; queue.length > 0;) {
    const pid = queue.pop()!;
    total += pssKb(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return total / 1024;
}

const summary = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))} ms  p95 ${fmt(percentile(sorted, 95))} ms  (n=${values.length})`;
};

async function main(): Promise<void> {
  const site = await startAutomateSite();
  const stack = await startStack(path.join(projectRoot(), 'data', 'bench-logs'), {
    LOG_LEVEL: 'warn',
    BROWSER_SESSIONS: String(Math.max(...SESSION_COUNTS)),
    AUTOMATE_SCREENSHOTS: 'false',
  });
  try {
    const browserPid = Object.entries(stack.pids).find(([name]) => name.includes('browser'))?.[1];
    if (!browserPid) throw new Error('no browser worker in the stack');
    // Warm-up: worker sandboxes, Chromium's first launch, connections.
    await script(stack, [{ keep: true, content: agentDecision({ action: 'scroll', direction: 'down' }) }]);
    await automate(stack, { task: 'warm up', url: site.url, maxIterations: 3 });

    // In-page steps: the agent types into the search box, step after step; no page loads.
    await script(stack, [
      {
        keep: true,
        content: agentDecision({ action: 'fill', ref: '{{ref:searchbox "Search products"}}', value: 'aurora' }),
      },
    ]);
    const inPage = await stepTimes(stack, { task: 'Type', url: site.url, maxIterations: STEPS });

    // Page-loading steps: back and forth between the home page and the deal page, by a click
    // and by a navigation. Each page is told by its heading, which no note of an earlier step repeats.
    await script(stack, [
      {
        keep: true,
        when: 'heading "Aurora Deal Headphones"',
        content: agentDecision({ action: 'navigate', url: site.url }),
      },
      {
        keep: true,
        when: 'heading "Webloom Test Shop"',
        content: agentDecision({ action: 'click', ref: '{{ref:link "Today\'s deal"}}' }),
      },
    ]);
    const loading = await stepTimes(stack, { task: 'Browse', url: site.url, maxIterations: STEPS });

    const idle = treeMb(browserPid);
    const memory: string[] = [];
    for (const count of SESSION_COUNTS) {
      await script(stack, [{ keep: true, content: agentDecision({ action: 'wait', seconds: 10 }) }]);
      let waiting = 0;
      let allWaiting!: () => void;
      const held = new Promise<void>((resolve) => (allWaiting = resolve));
      const tasks = Promise.all(
        Array.from({ length: count }, () =>
          automate(stack, { task: 'Hold a session', url: site.url, maxIterations: 2 }, (event) => {
            if (event === 'agent:waiting' && ++waiting === count) allWaiting();
          }),
        ),
      );
      await held;
      const measured = treeMb(browserPid);
      memory.push(
        `${String(count).padStart(2)} session(s): browser worker (Node and Chromium, PSS) ${fmt(measured)} MB; ` +
          `${fmt((measured - idle) / count)} MB per session over the idle ${fmt(idle)} MB`,
      );
      // Each task ends after its second wait, closing its session before the next count.
      await tasks;
    }

    console.log('Automate on the shop fixture site, instant model stand-in, screenshots off:');
    console.log(`per-step time (observe, decide, act, Temporal):`);
    console.log(`  in-page actions (fill)             ${summary(inPage)}`);
    console.log(`  page-loading actions (click, goto) ${summary(loading)}`);
    console.log('memory per concurrent session on one browser worker:');
    for (const line of memory) console.log(`  ${line}`);
  } finally {
    await stopStack(stack);
    await site.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
