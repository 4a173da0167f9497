import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startStack, stopStack } from '../test/support/localStack';

/**
 * `npm run bench:pdf [-- --peers]`: PDF to Markdown quality and speed on the PDF benchmark in
 * ../shared/pdf-bench (PDF_BENCH_DIR elsewhere). Starts the embedded stack, sends every PDF of
 * the corpus through POST /v1/extract/markdown with the folder's runner, scores the answers with
 * the folder's scorer and prints NID, TEDS, MHS, overall and s/page, overall and per layout.
 * `--peers` also runs pymupdf4llm and opendataloader-pdf (the folder's peers runner) in the same
 * run, so the comparison is measured on this machine, not quoted.
 */

const BENCH_DIR = process.env.PDF_BENCH_DIR ?? path.resolve(__dirname, '..', '..', '..', 'shared', 'pdf-bench');
/** Outside the checkout: the scorer's packages are not ours to vendor, and a venv is per machine. */
const VENV = process.env.PDF_BENCH_VENV ?? path.join(os.tmpdir(), 'webloom-pdf-bench-venv');
const PYTHON = path.join(VENV, 'bin', 'python');
const PEERS = ['pymupdf4llm', 'opendataloader'];
/** The loopback host the folder's runner serves the PDFs on. */
const RUNNER_HOST = '127.0.0.1';

interface Scores {
  overall: number | null;
  nid: number | null;
  teds: number | null;
  mhs: number | null;
}

interface Document {
  id: string;
  features: string[];
  content: { tables: number };
}

interface Engine {
  name: string;
  means: Scores;
  documents: Record<string, Scores>;
  secondsPerPage: number;
}

const LAYOUTS: [string, (doc: Document) => boolean][] = [
  ['two-column', (doc) => doc.features.includes('two-column')],
  ['running headers', (doc) => doc.features.includes('running-header')],
  ['tables', (doc) => doc.content.tables > 0],
  ['TOC', (doc) => doc.features.includes('toc')],
  ['LaTeX', (doc) => doc.features.includes('latex')],
];

function run(command: string, args: string[], cwd = BENCH_DIR): void {
  execFileSync(command, args, { cwd, stdio: 'inherit' });
}

function ensureVenv(peers: boolean): void {
  if (!existsSync(PYTHON)) run('python3', ['-m', 'venv', VENV]);
  const wanted = ['requirements.txt', ...(peers ? ['requirements-peers.txt'] : [])];
  for (const file of wanted) run(PYTHON, ['-m', 'pip', 'install', '--quiet', '-r', file]);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

/** The median over documents of seconds per page, as the folder's reference table reports it. */
function secondsPerPage(dir: string, pages: Map<string, number>): number {
  const timings = JSON.parse(readFileSync(path.join(dir, 'timings.json'), 'utf8')) as {
    documents: Record<string, { ok: boolean; seconds: number }>;
  };
  return median(
    Object.entries(timings.documents)
      .filter(([, entry]) => entry.ok)
      .map(([id, entry]) => entry.seconds / (pages.get(id) ?? 1)),
  );
}

function score(name: string, dir: string, pages: Map<string, number>): Engine {
  const out = path.join(dir, 'scores.json');
  run(PYTHON, ['score.py', dir, '--quiet', '--json', out]);
  const scored = JSON.parse(readFileSync(out, 'utf8')) as { means: Scores; documents: Record<string, Scores> };
  return { name, means: scored.means, documents: scored.documents, secondsPerPage: secondsPerPage(dir, pages) };
}

const f3 = (value: number | null | undefined) =>
  value === null || value === undefined || Number.isNaN(value) ? '-' : value.toFixed(3);

function mean(values: (number | null)[]): number | null {
  const present = values.filter((v): v is number => v !== null);
  return present.length > 0 ? present.reduce((a, b) => a + b, 0) / present.length : null;
}

function report(engines: Engine[], docs: Document[]): void {
  console.log('\n| engine | reading order NID | tables TEDS | headings MHS | overall | s/page |');
  console.log('|---|---|---|---|---|---|');
  for (const e of engines) {
    const m = e.means;
    console.log(
      `| ${e.name} | ${f3(m.nid)} | ${f3(m.teds)} | ${f3(m.mhs)} | ${f3(m.overall)} | ${f3(e.secondsPerPage)} |`,
    );
  }
  console.log(`\nPer layout (overall; webloom's NID / TEDS / MHS):`);
  console.log(`| layout | docs | ${engines.map((e) => e.name).join(' | ')} | webloom NID | TEDS | MHS |`);
  console.log(`|---|---|${engines.map(() => '---|').join('')}---|---|---|`);
  for (const [layout, matches] of LAYOUTS) {
    const ids = docs.filter(matches).map((doc) => doc.id);
    const of = (e: Engine, key: keyof Scores) => mean(ids.map((id) => e.documents[id]?.[key] ?? null));
    const [ours] = engines;
    console.log(
      `| ${layout} | ${ids.length} | ${engines.map((e) => f3(of(e, 'overall'))).join(' | ')} | ` +
        `${f3(of(ours!, 'nid'))} | ${f3(of(ours!, 'teds'))} | ${f3(of(ours!, 'mhs'))} |`,
    );
  }
}

async function main(): Promise<void> {
  const peers = process.argv.includes('--peers');
  if (!existsSync(path.join(BENCH_DIR, 'score.py')))
    throw new Error(`no PDF benchmark at ${BENCH_DIR}: set PDF_BENCH_DIR`);
  ensureVenv(peers);
  const docs = (
    JSON.parse(readFileSync(path.join(BENCH_DIR, 'corpus.json'), 'utf8')) as {
      documents_list: (Document & { pages: number })[];
    }
  ).documents_list;
  const pages = new Map(docs.map((doc) => [doc.id, doc.pages]));
  const dataDir = path.resolve(__dirname, '..', '..', 'data');
  const results = path.join(dataDir, 'bench-pdf');
  await rm(results, { recursive: true, force: true });
  const ours = path.join(results, 'webloom');
  const stack = await startStack(path.join(dataDir, 'bench-logs'), {
    LOG_LEVEL: 'warn',
    // The folder's runner serves the PDFs on loopback; only this benchmark's stack may fetch there.
    ALLOW_INTERNAL_HOSTS: RUNNER_HOST,
    CONVERT_TIMEOUT_MS: '60000',
  });
  try {
    run('python3', ['run-webloom.py', stack.apiUrl, stack.apiKey, ours]);
  } finally {
    await stopStack(stack);
  }
  const engines = [score('webloom', ours, pages)];
  if (peers) {
    run(PYTHON, ['peers/run_peers.py', '--engines', PEERS.join(','), '--out', results]);
    for (const peer of PEERS) engines.push(score(peer, path.join(results, peer), pages));
  }
  report(engines, docs);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
