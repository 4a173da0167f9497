import { readFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot, startStack, stopStack, type Stack } from '../test/support/localStack';
import type { FormatReply } from '../test/support/modelStandIn';
import { CORPUS, startResearchCorpus } from '../test/support/researchCorpus';
import { startSearchStandIn } from '../test/support/searchStandIn';
import { sseMessages } from '../test/support/sseClient';
import { fmt, percentile } from './common';

/**
 * `npm run bench:research`: Research over the 33-page test corpus with instant stand-ins (the
 * model stand-in and the SearXNG stand-in answer at once), so what is measured is the service:
 * Temporal, the workers' fetching and reading, the relay. It prints the time to the first event,
 * the relay latency (the workflow recording an event -> the client having it), the wall time of
 * a `fast` and a `balanced` run, and 50 `fast` runs at once: their wall time and the peak memory
 * of each process of the stack. Every request has `nocache`, so every page is fetched; the
 * queries keep clear of the corpus's slow and failing pages.
 */

const SEQUENTIAL_RUNS = Number(process.env.BENCH_RUNS ?? 10);
const BALANCED_RUNS = Number(process.env.BENCH_BALANCED_RUNS ?? 3);
const CONCURRENT_RUNS = Number(process.env.BENCH_CONCURRENT ?? 50);

const answer = (value: unknown): FormatReply => ({ content: JSON.stringify(value), keep: true });

/** Instant answers: a plan over the corpus, every page useful, two rounds in balanced, an approved report. */
const REPLIES: Record<string, FormatReply[]> = {
  research_plan: [
    answer({
      objective: 'Volcanoes, bees and aqueducts',
      plan: 'Read the corpus',
      complexity: 'moderate',
      questions: ['Which volcanoes erupted?', 'How do bees communicate?', 'How did aqueducts flow?'],
      // Clear of the corpus's slow and failing pages, so the times are the service's.
      queries: ['Hekla Katla Laki lava', 'waggle dance honey', 'Pont du Gard Segovia aqueduct'],
    }),
  ],
  page_analysis: [
    answer({
      relevance: 'high',
      reliability: 'high',
      summary: 'A useful page.',
      keyFacts: ['A fact from the page.'],
      promisingLinks: [],
    }),
  ],
  coverage_evaluation: [
    {
      content: JSON.stringify({
        coverage: 'Moderate',
        assessments: [],
        gaps: 'More',
        shouldContinue: true,
        nextQueries: ['Surtsey geothermal', 'Frontinus Aqua Appia'],
        newQuestions: [],
      }),
    },
    answer({ coverage: 'Solid', assessments: [], gaps: '', shouldContinue: false, nextQueries: [], newQuestions: [] }),
  ],
  research_report: [answer({ report: '# Report\n\nA first claim [1]. A second claim [2].' })],
  report_review: [answer({ approved: true, score: 8, observation: 'Good', feedback: '' })],
};

interface RunTiming {
  firstByte: number;
  firstEvent: number;
  wall: number;
  /** Per event: client receipt minus the workflow's record time, in ms. */
  relay: number[];
  last: string;
}

async function script(stack: Stack): Promise<void> {
  await fetch(`${stack.modelUrl}/__control/script`, {
    method: 'POST',
    body: JSON.stringify({ replies: [], byFormat: REPLIES }),
  });
}

async function research(stack: Stack, body: Record<string, unknown>): Promise<RunTiming> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}/research`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ ...body, nocache: true }),
  });
  const firstByte = performance.now() - started;
  if (response.status !== 200 || !response.body) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  const relay: number[] = [];
  let firstEvent = NaN;
  let last = '';
  for await (const { event, data, at } of sseMessages(response)) {
    if (!event || !data) continue;
    if (Number.isNaN(firstEvent)) firstEvent = performance.now() - started;
    last = event;
    const { timestamp } = JSON.parse(data) as { timestamp?: number };
    if (timestamp) relay.push(at - timestamp);
  }
  if (last !== 'complete') throw new Error(`the run ended with ${last}, not complete`);
  return { firstByte, firstEvent, wall: performance.now() - started, relay, last };
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${fmt(percentile(sorted, 50))} ms  p95 ${fmt(percentile(sorted, 95))} ms  (n=${values.length})`;
}

/** Resident memory of a process now, in MB (Linux /proc). */
function rssMb(pid: number): number {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
}

/** Samples the stack's processes every 100 ms until stopped; the peak of each. */
function watchMemory(pids: Record<string, number | undefined>): () => Record<string, number> {
  const peaks: Record<string, number> = {};
  const sample = () => {
    for (const [name, pid] of Object.entries(pids)) if (pid) peaks[name] = Math.max(peaks[name] ?? 0, rssMb(pid) || 0);
    peaks['bench (stand-ins, client)'] = Math.max(
      peaks['bench (stand-ins, client)'] ?? 0,
      process.memoryUsage().rss / 1024 / 1024,
    );
  };
  sample();
  const timer = setInterval(sample, 100);
  return () => {
    clearInterval(timer);
    sample();
    return peaks;
  };
}

async function main(): Promise<void> {
  const corpus = await startResearchCorpus();
  const search = await startSearchStandIn(corpus);
  const stack = await startStack(path.join(projectRoot(), 'data', 'bench-logs'), {
    SEARXNG_URL: search.baseUrl,
    LOG_LEVEL: 'warn',
  });
  try {
    await script(stack);
    // Warm-up: worker sandboxes, connections, the conversion threads.
    await research(stack, { query: 'warm up' });

    const fast: RunTiming[] = [];
    for (let i = 0; i < SEQUENTIAL_RUNS; i++)
      fast.push(await research(stack, { query: `Volcanoes, bees and aqueducts ${i}` }));
    const balanced: RunTiming[] = [];
    for (let i = 0; i < BALANCED_RUNS; i++) {
      await script(stack);
      balanced.push(await research(stack, { query: `Volcanoes, bees and aqueducts in depth ${i}`, mode: 'balanced' }));
    }

    await script(stack);
    const stopWatching = watchMemory(stack.pids);
    const started = performance.now();
    const concurrent = await Promise.all(
      Array.from({ length: CONCURRENT_RUNS }, (_, i) => research(stack, { query: `Concurrent research ${i}` })),
    );
    const wall = performance.now() - started;
    const peaks = stopWatching();

    console.log(`Research over the ${CORPUS.length}-page corpus, instant model and search stand-ins, nocache:`);
    console.log(`time to first byte (headers)      ${summary(fast.map((run) => run.firstByte))}`);
    console.log(`time to first event (start)       ${summary(fast.map((run) => run.firstEvent))}`);
    console.log(
      `event relay latency               ${summary(fast.flatMap((run) => run.relay))}  (workflow records -> client has it)`,
    );
    console.log(`wall time, fast run               ${summary(fast.map((run) => run.wall))}`);
    console.log(`wall time, balanced run           ${summary(balanced.map((run) => run.wall))}`);
    console.log(
      `${CONCURRENT_RUNS} fast runs at once: wall ${fmt(wall)} ms; each run ${summary(concurrent.map((run) => run.wall))}`,
    );
    console.log(`  relay latency under that load   ${summary(concurrent.flatMap((run) => run.relay))}`);
    console.log('  peak resident memory by process:');
    for (const [name, mb] of Object.entries(peaks)) console.log(`    ${name.padEnd(28)} ${fmt(mb)} MB`);
  } finally {
    await stopStack(stack);
    await search.close();
    await corpus.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
