import { classifyValue, keywordMatch, protectedValuesOf } from '../src/automate/sensitiveData';
import { fmt, percentile } from './common';

/**
 * `npm run bench:classifier`: the sensitive data classifier on 64 KiB adversarial strings, the
 * largest a `data` value can be. The workflow constructor classifies every leaf of `data` (a
 * constructor past Temporal's 5 s deadlock limit is retried without end, holding the workflow
 * worker), and the browser workers classify what pages write. Prints, per input, the median and
 * worst of RUNS timings of classifyValue, keywordMatch and protectedValuesOf.
 */

const SIZE = 64 * 1024;
const RUNS = Number(process.env.BENCH_RUNS ?? 20);

const INPUTS: [string, string][] = [
  ['word without @', 'a'.repeat(SIZE)],
  ['run of @', '@'.repeat(SIZE)],
  ['a@ repeated', 'a@'.repeat(SIZE / 2)],
  ['domain without its dot', `a@${'b'.repeat(SIZE - 2)}`],
  ['capitals', 'A'.repeat(SIZE)],
  ['digits', '1'.repeat(SIZE)],
  ['spaced digits', '1 '.repeat(SIZE / 2)],
  ['plus and digits', '+1'.repeat(SIZE / 2)],
  ['address at the end', `${'a'.repeat(SIZE - 20)} alice@example.org`],
];

function time(work: () => unknown): { median: number; worst: number } {
  const runs: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    work();
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  return { median: percentile(runs, 50), worst: runs[runs.length - 1]! };
}

console.log(`classifier on ${SIZE}-character strings, ${RUNS} runs each (ms, median / worst)`);
console.log(
  `${'input'.padEnd(26)}${'classifyValue'.padStart(18)}${'keywordMatch'.padStart(18)}${'data leaf'.padStart(18)}`,
);
for (const [name, text] of INPUTS) {
  const columns = [
    time(() => classifyValue(text)),
    time(() => keywordMatch(text)),
    time(() => protectedValuesOf({ [text.slice(0, 300)]: text })),
  ].map(({ median, worst }) => `${fmt(median)} / ${fmt(worst)}`.padStart(18));
  console.log(`${name.padEnd(26)}${columns.join('')}`);
}
