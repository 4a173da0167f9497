import path from 'node:path';
import { startStack, stopStack } from '../test/support/localStack';
import { articlePage, callApi, fmt, load, servePage } from './common';

/**
 * `npm run bench:json`: the service's own overhead in Extract JSON (fetch, convert, prompt
 * build, validation, Temporal) with the stand-in model answering at once, against Extract
 * Markdown on the same ~100 KB page, at concurrency 1 and 16.
 */

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 100);
const PARALLEL = Number(process.env.BENCH_PARALLEL ?? 400);
const CONCURRENCY = 16;

const SCHEMA = {
  type: 'object',
  properties: { title: { type: 'string' }, sections: { type: 'array', items: { type: 'string' } } },
  required: ['title', 'sections'],
};

async function main(): Promise<void> {
  const { url, close } = await servePage(articlePage());
  // A budget that fits the page in one request, as a real model's context would.
  const stack = await startStack(path.resolve(__dirname, '..', '..', 'data', 'bench-logs'), {
    LOG_LEVEL: 'warn',
    MODEL_CONTENT_TOKENS: '64000',
  });
  try {
    const json = () => callApi(stack, '/extract/json', { url, json_schema: SCHEMA, effort: 'min' });
    const markdown = () => callApi(stack, '/extract/markdown', { url, effort: 'min', nocache: true });
    await load(20, 4, json);
    await load(20, 4, markdown);
    const md1 = await load(SEQUENTIAL, 1, markdown);
    const json1 = await load(SEQUENTIAL, 1, json);
    const md16 = await load(PARALLEL, CONCURRENCY, markdown);
    const json16 = await load(PARALLEL, CONCURRENCY, json);
    console.log(
      `${SEQUENTIAL} requests at concurrency 1, ${PARALLEL} at ${CONCURRENCY}; stand-in model answers instantly`,
    );
    for (const [name, markdownRun, jsonRun] of [
      ['concurrency 1', md1, json1],
      [`concurrency ${CONCURRENCY}`, md16, json16],
    ] as const) {
      console.log(
        `${name}: extract/json p50 ${fmt(jsonRun.p50)} ms p95 ${fmt(jsonRun.p95)} ms (${fmt(jsonRun.rps)} req/s); ` +
          `extract/markdown p50 ${fmt(markdownRun.p50)} ms p95 ${fmt(markdownRun.p95)} ms; overhead beyond Markdown p50 ${fmt(jsonRun.p50 - markdownRun.p50)} ms`,
      );
    }
    console.log(
      `target: overhead beyond Extract Markdown p50 < 40 ms -> ${json1.p50 - md1.p50 < 40 ? 'met' : 'missed'}`,
    );
  } finally {
    await stopStack(stack);
    close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
