import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../../src/config';
import { readSettings } from '../../src/workers/readSettings';
import { post, type ApiResponse } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { eventually } from '../support/eventually';
import { judged } from '../support/reliabilityVerdicts';

/**
 * Pages built to make reading them cost without end. Whatever a page does, it costs a bounded
 * amount of CPU and memory, its request gets a clear error, and other requests on the same worker
 * are served meanwhile.
 */

const DEPTH = 500_000;
/** 500,000 nested `<div>`s, 5.5 MB: linkedom's parser is quadratic in nesting depth. */
const DEEP = `<!doctype html><html><head><title>Deep</title></head><body>${'<div>'.repeat(DEPTH)}bottom${'</div>'.repeat(DEPTH)}</body></html>`;

/**
 * 1 MB of unclosed `<script` openers: the check for a page drawn by script looked for each one's
 * closing tag to the end of the page, so reading it took minutes, until every pattern became linear.
 */
const ENDLESS = `<!doctype html><html><head><title>Endless</title></head><body><p>Text.</p>${'<script'.repeat(150_000)}</body></html>`;

const ARTICLE = `<!doctype html><html><head><title>An ordinary page</title></head><body><article><h1>An ordinary page</h1>
<p>${'An ordinary paragraph that any reader converts in a few milliseconds. '.repeat(8)}</p></article></body></html>`;

/** What answers a hostile page: Extract Markdown's spec has one conversion failure. */
const CONVERSION_FAILED = { status: 500, error: 'failed to convert HTML to Markdown' };

/** Generous for a loaded two-core machine, and far below the 60 s these pages took before. */
const DEEP_BOUND_MS = 15_000;
/** The test stack's CONVERT_TIMEOUT_MS plus room for the download and the workflow. */
const ENDLESS_BOUND_MS = 25_000;
/** An ordinary page while a hostile one is being read on the same worker. */
const PROMPT_MS = 5_000;
/**
 * Peak resident memory of the page worker process while it reads the hostile pages: its base
 * (Node, Temporal's core, the browser pool's bookkeeping) and each conversion thread's heap cap.
 */
const MEMORY_BOUND_MB = 1_500;

let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/deep': html(DEEP),
    '/endless': html(ENDLESS),
    '/article': html(ARTICLE),
  });
});
afterAll(() => fixtures.close());

/**
 * The processes that read pages now: the dev stack's one fetch and browser worker, or on the
 * cluster every fetch and browser replica, since either may take the hostile page. Found in /proc,
 * not in the ids the stack started with: the cluster's supervisor restarts the workers another
 * test kills, under new ids.
 */
const pageWorkerPids = (): number[] => {
  const address = process.env.TEST_TEMPORAL_ADDRESS;
  const pids = readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
        const main = args.findIndex((arg) => arg.endsWith(path.join('workers', 'main.js')));
        if (main < 0) return [];
        const env = new Map(
          readFileSync(`/proc/${entry}/environ`, 'utf8')
            .split('\0')
            .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)] as const),
        );
        if (address && env.get('TEMPORAL_ADDRESS') !== address) return [];
        const roles = (args[main + 1] || env.get('WORKER_ROLES') || '').split(',');
        return roles.includes('fetch') || roles.includes('browser') ? [Number(entry)] : [];
      } catch {
        // The process ended while being read.
        return [];
      }
    });
  if (pids.length === 0) throw new Error('no page worker process found');
  return pids;
};

/** Resets the peak resident set size the kernel keeps for each process (VmHWM). */
const resetPeakMemory = (pids: number[]) => pids.forEach((pid) => writeFileSync(`/proc/${pid}/clear_refs`, '5'));

/** The highest peak among the processes since their reset. */
const peakMemoryMb = (pids: number[]): number =>
  Math.max(
    ...pids.map((pid) => {
      const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (!match) throw new Error(`no VmHWM for process ${pid}`);
      return Number(match[1]) / 1024;
    }),
  );

const timed = async <T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> => {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
};

const extract = (path: string, effort: string) =>
  post('/extract/markdown', { url: fixtures.url(path), effort, nocache: true });

/**
 * Requests `path` and, once the fixture server has sent it, asks for an ordinary page three
 * times in a row: each must be answered promptly while the hostile one is read.
 */
async function readAlongside(
  path: string,
  effort: string,
): Promise<{ hostile: { result: ApiResponse; ms: number }; ordinary: number[] }> {
  const served = fixtures.hits.get(path) ?? 0;
  const hostile = timed(() => extract(path, effort));
  await eventually(() => (fixtures.hits.get(path) ?? 0) > served, {
    what: `${path} to be asked for`,
    timeoutMs: 30_000,
  });
  const ordinary: number[] = [];
  for (let i = 0; i < 3; i++) {
    const { result, ms } = await timed(() => extract('/article', 'min'));
    expect(result.status).toBe(200);
    expect(result.body.content).toContain('An ordinary paragraph');
    ordinary.push(ms);
  }
  return { hostile: await hostile, ordinary };
}

/** A reading as a row of docs/reliability.md, for its expectations' verdict. */
function row(
  fault: string,
  effort: string,
  { hostile: { result, ms }, ordinary }: Awaited<ReturnType<typeof readAlongside>>,
  peakMb: number,
) {
  return {
    fault,
    target: `Extract Markdown, effort ${effort}`,
    outcome: `${result.status}${typeof result.body.error === 'string' ? ` ${result.body.error}` : ''}`,
    figures: { ms, 'ordinary max ms': Math.max(...ordinary), 'peak MB': Math.round(peakMb) },
  };
}

describe('a hostile page', () => {
  it.each(['min', 'standard'])(
    'of 500,000 nested divs at effort %s fails fast with bounded memory, others served meanwhile',
    async (effort) => {
      const pids = pageWorkerPids();
      resetPeakMemory(pids);
      const read = await readAlongside('/deep', effort);
      const { hostile, ordinary } = read;
      const peak = peakMemoryMb(pids);
      await judged('hostile-pages', row('500,000 nested divs', effort, read, peak), () => {
        expect({ status: hostile.result.status, error: hostile.result.body.error }).toEqual(CONVERSION_FAILED);
        expect(hostile.ms).toBeLessThan(DEEP_BOUND_MS);
        expect(Math.max(...ordinary)).toBeLessThan(PROMPT_MS);
        expect(peak).toBeLessThan(MEMORY_BOUND_MB);
      });
    },
    180_000,
  );

  it('of 1 MB of unclosed script openers, once read in minutes, reads in linear time, others served meanwhile', async () => {
    const pids = pageWorkerPids();
    resetPeakMemory(pids);
    const read = await readAlongside('/endless', 'min');
    const { hostile, ordinary } = read;
    const peak = peakMemoryMb(pids);
    await judged('hostile-pages', row('1 MB of unclosed script openers', 'min', read, peak), () => {
      expect(hostile.result.status).toBe(200);
      expect(hostile.result.body.content).toContain('Text.');
      expect(hostile.ms).toBeLessThan(ENDLESS_BOUND_MS);
      expect(Math.max(...ordinary)).toBeLessThan(PROMPT_MS);
      expect(peak).toBeLessThan(MEMORY_BOUND_MB);
    });
  }, 180_000);

  it('whose reading runs past its time budget is stopped there and fails, and the next page is read', async () => {
    // The reading threads run compiled code: dist/ is built before the e2e tests. A budget of
    // 20 ms stands for any reading that would run on: 200,000 paragraphs take far longer.
    const readingModule = path.resolve(__dirname, '../../dist/src/reading/readingPool.js');
    const { ReadingPool } = (await import(readingModule)) as typeof import('../../src/reading/readingPool');
    const config = loadConfig({});
    const pool = new ReadingPool({ ...config.convert, threads: 1, timeoutMs: 20 }, readSettings(config));
    const page = (body: string) => ({
      body: Buffer.from(body, 'utf8'),
      contentType: 'text/html; charset=utf-8',
      finalUrl: 'http://pages.test/',
      truncated: false,
    });
    let outcome = 'the long page not stopped';
    const row = () => ({ fault: '200,000 paragraphs past a 20 ms budget', target: 'reading pool', outcome });
    try {
      await judged('hostile-pages', row, async () => {
        const long = `<!doctype html><html><body>${'<p>A paragraph of words.</p>'.repeat(200_000)}</body></html>`;
        await expect(
          pool.readPage(page(long), { as: 'markdown', content: 'full' }, { detectShell: false }),
        ).rejects.toMatchObject({
          code: 'page_too_large_to_convert',
          detail: expect.stringMatching(/took over 20 ms/),
        });
        outcome = 'stopped at its budget; the next page not read';
        // The replaced thread's first readings run cold code, which a loaded machine can stretch past
        // 20 ms: what matters is that the pool reads pages again, not how fast a cold thread starts.
        const read = await eventually(
          () => pool.readPage(page(ARTICLE), { as: 'markdown', content: 'full' }, { detectShell: false }),
          { what: 'an ordinary page read within the budget after the stop', timeoutMs: 30_000 },
        );
        expect(JSON.stringify(read.reading)).toContain('An ordinary paragraph');
        outcome = 'stopped at its budget; the next page read';
      });
    } finally {
      await pool.close();
    }
  }, 60_000);
});
