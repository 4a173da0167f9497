import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { pdfToMarkdown } from '../src/extraction/pdf/index';
import { ServicePayloadCodec } from '../src/temporal/payloadCodec';
import { startStack, stopStack, type Stack } from '../test/support/localStack';
import { testPayloadKeys } from '../test/support/payloadKeys';
import { articlePage } from './common';

/**
 * `npm run bench:pdf [-- --peers]`: PDF to Markdown quality and speed on the PDF benchmark in
 * ../shared/pdf-bench (PDF_BENCH_DIR elsewhere). Starts the embedded stack, sends every PDF of
 * the corpus through POST /v1/extract/markdown with the folder's runner, scores the answers with
 * the folder's scorer and prints NID, TEDS, MHS, overall and s/page, overall and per layout.
 * `--peers` also runs pymupdf4llm and opendataloader-pdf (the folder's peers runner) in the same
 * run, so the comparison is measured on this machine, not quoted.
 *
 * `--against <dir>` times this build against another (a checkout, or a copy of one, built with
 * `npm run build:tools`) instead of scoring: both stacks up at once, each document sent to one
 * and then the other, the order alternating, so each pair of timings shares the load of its
 * moment. On a machine others load, s/page moves several-fold between runs; the ratio moves less.
 *
 * `--segments [rounds]` (with `--against <dir>`, for both builds, interleaved) shows where a
 * document's time goes instead of scoring: per document, the median over the corpus of each
 * segment the run's history dates (API to workflow start, to the fetch activity's start, the
 * download, the read and return, to the workflow's completion, to the answer's last byte), beside
 * the conversion's CPU time alone in this process and an HTML article through the same path, so
 * the fixed cost a PDF pays outside its pages is seen apart from what every request pays.
 */

const BENCH_DIR = process.env.PDF_BENCH_DIR ?? path.resolve(__dirname, '..', '..', '..', 'shared', 'pdf-bench');
/** Outside the checkout: the scorer's packages are not ours to vendor, and a venv is per machine. */
const VENV = process.env.PDF_BENCH_VENV ?? path.join(os.tmpdir(), 'webloom-pdf-bench-venv');
const PYTHON = path.join(VENV, 'bin', 'python');
const PEERS = ['pymupdf4llm', 'opendataloader'];
/** Passes over the corpus of a timing against another build. */
const PAIRED_ROUNDS = 3;
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

/** The corpus's PDFs, and at /article.html the HTML article the other benchmarks read. */
function servePdfs(): Promise<Server> {
  const article = articlePage();
  const server = createServer((req, res) => {
    if (req.url === '/article.html') {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(article);
      return;
    }
    readFile(path.join(BENCH_DIR, 'pdfs', path.basename(req.url ?? '')))
      .then((pdf) => res.writeHead(200, { 'content-type': 'application/pdf' }).end(pdf))
      .catch(() => res.writeHead(404).end());
  });
  return new Promise((resolve) => server.listen(0, RUNNER_HOST, () => resolve(server)));
}

interface Answer {
  /** Seconds from sending to the answer's last byte, as the folder's runner times it. */
  seconds: number;
  workflowId: string;
  /** Epoch milliseconds, to set beside the run history's event times. */
  sentAt: number;
  answeredAt: number;
}

const epochMs = (): number => performance.timeOrigin + performance.now();

async function extract(stack: Stack, url: string): Promise<Answer> {
  const sentAt = epochMs();
  const res = await fetch(`${stack.apiUrl}/extract/markdown`, {
    method: 'POST',
    headers: { authorization: `Bearer ${stack.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ url, metadata: true, nocache: true }),
  });
  const body = await res.text();
  const answeredAt = epochMs();
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status} ${body.slice(0, 200)}`);
  return {
    seconds: (answeredAt - sentAt) / 1000,
    workflowId: res.headers.get('x-workflow-id') ?? '',
    sentAt,
    answeredAt,
  };
}

const SEGMENTS = [
  'API to workflow start',
  'to fetch activity start',
  'download',
  'read and return',
  'to workflow completion',
  'to answer',
  'total',
  'conversion alone (CPU)',
] as const;
type Segment = (typeof SEGMENTS)[number];

const eventMs = (time: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

/** A request's segments in milliseconds, dated by its run's history and the activity's own download time. */
async function segmentsOf(client: Client, codec: ServicePayloadCodec, answer: Answer): Promise<Map<Segment, number>> {
  const history = await client.workflow.getHandle(answer.workflowId).fetchHistory();
  const at = new Map<string, number>();
  let obtainMs = NaN;
  for (const event of history.events ?? []) {
    const time = eventMs(event.eventTime);
    if (event.workflowExecutionStartedEventAttributes) at.set('start', time);
    if (event.activityTaskStartedEventAttributes) at.set('activity', time);
    if (event.workflowExecutionCompletedEventAttributes) at.set('completed', time);
    const done = event.activityTaskCompletedEventAttributes;
    if (done) {
      at.set('activity done', time);
      const [payload] = await codec.decode(done.result?.payloads ?? []);
      if (payload?.data)
        obtainMs = (JSON.parse(Buffer.from(payload.data).toString('utf8')) as { obtainMs: number }).obtainMs;
    }
  }
  const of = (name: string) => at.get(name) ?? NaN;
  return new Map<Segment, number>([
    ['API to workflow start', of('start') - answer.sentAt],
    ['to fetch activity start', of('activity') - of('start')],
    ['download', obtainMs],
    ['read and return', of('activity done') - of('activity') - obtainMs],
    ['to workflow completion', of('completed') - of('activity done')],
    ['to answer', answer.answeredAt - of('completed')],
    ['total', answer.answeredAt - answer.sentAt],
  ]);
}

type Convert = typeof pdfToMarkdown;

/** An HTML request between every this many PDFs: the fixed cost every request pays, sampled through the run. */
const HTML_EVERY = 5;

/**
 * Per-document segments of each build (this one, and the one `against` names), the builds
 * interleaved per document and their order alternating, as in timeAgainst.
 */
async function timeSegments(
  against: string | undefined,
  docs: (Document & { pages: number })[],
  dataDir: string,
  rounds: number,
): Promise<void> {
  const builds: { name: string; startStack: typeof startStack; convert: Convert }[] = [
    { name: 'this build', startStack, convert: pdfToMarkdown },
  ];
  if (against) {
    const dist = path.join(path.resolve(against), 'dist');
    builds.push({
      name: against,
      startStack: (
        (await import(path.join(dist, 'test', 'support', 'localStack.js'))) as { startStack: typeof startStack }
      ).startStack,
      convert: ((await import(path.join(dist, 'src', 'extraction', 'pdf', 'index.js'))) as { pdfToMarkdown: Convert })
        .pdfToMarkdown,
    });
  }
  const server = await servePdfs();
  const base = `http://${RUNNER_HOST}:${(server.address() as AddressInfo).port}/`;
  const env = { LOG_LEVEL: 'warn', ALLOW_INTERNAL_HOSTS: RUNNER_HOST, CONVERT_TIMEOUT_MS: '60000' };
  const bodies = new Map(
    docs.map((doc) => [doc.id, new Uint8Array(readFileSync(path.join(BENCH_DIR, 'pdfs', `${doc.id}.pdf`)))]),
  );
  const stacks: Stack[] = [];
  const connections: Connection[] = [];
  try {
    for (const [k, build] of builds.entries())
      stacks.push(await build.startStack(path.join(dataDir, `bench-logs-segments-${k}`), env));
    const clients = await Promise.all(
      stacks.map(async (stack) => {
        const connection = await Connection.connect({ address: stack.temporalAddress });
        connections.push(connection);
        return new Client({ connection, namespace: stack.namespace });
      }),
    );
    const codec = new ServicePayloadCodec(testPayloadKeys);
    const html = { id: 'html', url: `${base}article.html`, pdf: false, pages: 1 };
    const targets = docs.flatMap((doc, i) => [
      ...(i % HTML_EVERY === 0 ? [html] : []),
      { id: doc.id, url: `${base}${doc.id}.pdf`, pdf: true, pages: doc.pages },
    ]);
    for (const stack of stacks) for (const target of targets.slice(0, 4)) await extract(stack, target.url);
    /** By build, PDF or HTML, then segment: one value per request. */
    const values = builds.map(() => ({ pdf: new Map<Segment, number[]>(), html: new Map<Segment, number[]>() }));
    const perPage: number[][] = builds.map(() => []);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      for (const [i, target] of targets.entries()) {
        loads.push(os.loadavg()[0]!);
        const order = builds.map((_, k) => k);
        if ((i + round) % 2 === 1) order.reverse();
        for (const k of order) {
          const segments = await segmentsOf(clients[k]!, codec, await extract(stacks[k]!, target.url));
          if (target.pdf) {
            const cpu = process.cpuUsage();
            await builds[k]!.convert(bodies.get(target.id)!);
            const { user, system } = process.cpuUsage(cpu);
            segments.set('conversion alone (CPU)', (user + system) / 1000);
            perPage[k]!.push(segments.get('total')! / 1000 / target.pages);
          }
          const into = values[k]![target.pdf ? 'pdf' : 'html'];
          for (const [segment, ms] of segments) into.set(segment, [...(into.get(segment) ?? []), ms]);
        }
      }
    }
    const pages = median(docs.map((doc) => doc.pages));
    console.log(
      `\n${rounds} passes over ${docs.length} PDFs (median ${pages} pages) and an HTML article, ` +
        `load average median ${f3(median(loads))}; median ms per request:`,
    );
    console.log(`| segment | ${builds.map((b) => `${b.name} PDF | ${b.name} HTML`).join(' | ')} |`);
    console.log(`|---|${builds.map(() => '---|---|').join('')}`);
    for (const segment of SEGMENTS) {
      const cell = (list: number[] | undefined) => (list ? median(list).toFixed(1) : '-');
      console.log(
        `| ${segment} | ${values.map((v) => `${cell(v.pdf.get(segment))} | ${cell(v.html.get(segment))}`).join(' | ')} |`,
      );
    }
    console.log(builds.map((b, k) => `${b.name}: median s/page ${f3(median(perPage[k]!))}`).join('; '));
  } finally {
    for (const connection of connections) await connection.close();
    for (const stack of stacks) await stopStack(stack);
    server.close();
  }
}

async function timeAgainst(against: string, docs: (Document & { pages: number })[], dataDir: string): Promise<void> {
  const other = (await import(path.join(path.resolve(against), 'dist', 'test', 'support', 'localStack.js'))) as {
    startStack: typeof startStack;
  };
  const server = await servePdfs();
  const base = `http://${RUNNER_HOST}:${(server.address() as AddressInfo).port}/`;
  const env = { LOG_LEVEL: 'warn', ALLOW_INTERNAL_HOSTS: RUNNER_HOST, CONVERT_TIMEOUT_MS: '60000' };
  const names = ['this build', against];
  const stacks: Stack[] = [];
  try {
    stacks.push(await startStack(path.join(dataDir, 'bench-logs'), env));
    stacks.push(await other.startStack(path.join(dataDir, 'bench-logs-against'), env));
    // Each stack's threads load pdf.js and warm up on their first documents.
    for (const stack of stacks) for (const doc of docs.slice(0, 4)) await extract(stack, `${base}${doc.id}.pdf`);
    const perPage: number[][] = [[], []];
    const loads: number[] = [];
    for (let round = 0; round < PAIRED_ROUNDS; round++) {
      for (const [i, doc] of docs.entries()) {
        loads.push(os.loadavg()[0]!);
        for (const k of (i + round) % 2 === 0 ? [0, 1] : [1, 0])
          perPage[k]!.push((await extract(stacks[k]!, `${base}${doc.id}.pdf`)).seconds / doc.pages);
      }
    }
    const [ours, theirs] = perPage as [number[], number[]];
    console.log(`\n${PAIRED_ROUNDS} passes, ${docs.length} documents each, load average median ${f3(median(loads))}:`);
    names.forEach((name, k) => console.log(`${name}: median s/page ${f3(median(perPage[k]!))}`));
    console.log(
      `this build / ${against}: ratio of the medians ${f3(median(ours) / median(theirs))}, ` +
        `median of the paired ratios ${f3(median(ours.map((s, i) => s / theirs[i]!)))}`,
    );
  } finally {
    for (const stack of stacks) await stopStack(stack);
    server.close();
  }
}

async function main(): Promise<void> {
  const peers = process.argv.includes('--peers');
  const againstAt = process.argv.indexOf('--against');
  if (!existsSync(path.join(BENCH_DIR, 'score.py')))
    throw new Error(`no PDF benchmark at ${BENCH_DIR}: set PDF_BENCH_DIR`);
  const docs = (
    JSON.parse(readFileSync(path.join(BENCH_DIR, 'corpus.json'), 'utf8')) as {
      documents_list: (Document & { pages: number })[];
    }
  ).documents_list;
  const dataDir = path.resolve(__dirname, '..', '..', 'data');
  const segmentsAt = process.argv.indexOf('--segments');
  if (segmentsAt > 0) {
    const rounds = Number(process.argv[segmentsAt + 1]);
    const against = againstAt > 0 ? process.argv[againstAt + 1] : undefined;
    await timeSegments(against, docs, dataDir, Number.isInteger(rounds) && rounds > 0 ? rounds : 1);
    return;
  }
  if (againstAt > 0) {
    const against = process.argv[againstAt + 1];
    if (!against) throw new Error('--against needs the directory of another build');
    await timeAgainst(against, docs, dataDir);
    return;
  }
  ensureVenv(peers);
  const pages = new Map(docs.map((doc) => [doc.id, doc.pages]));
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
