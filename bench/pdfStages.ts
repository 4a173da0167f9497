import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { blocksOf } from '../src/extraction/pdf/blocks';
import { dropFurniture } from '../src/extraction/pdf/furniture';
import { openPdf, pageItems, pdfToMarkdown } from '../src/extraction/pdf/index';
import { readPage } from '../src/extraction/pdf/load';
import { toMarkdown } from '../src/extraction/pdf/render';
import type { RawPage } from '../src/extraction/pdf/types';

/**
 * `npm run bench:pdf-stages [-- passes]`: the PDF converter in-process, without the stack, on every
 * PDF of ../shared/pdf-bench (PDF_BENCH_DIR elsewhere). Prints ms per page for the whole
 * conversion and for each stage, the median of a few passes, so a change to one stage is measured
 * apart from HTTP, Temporal and the machine's other load. `text only` is pdf.js's text content
 * alone, on a freshly opened document: what reading a page would cost without its operator list.
 * `open`, `first page` and `close` are per document: what a document costs pdf.js besides its
 * pages (getDocument, then a first page's reading, where its fonts are parsed, against `load`'s
 * mean, and destroy).
 */

const BENCH_DIR = process.env.PDF_BENCH_DIR ?? path.resolve(__dirname, '..', '..', '..', 'shared', 'pdf-bench');
const STAGES = ['convert', 'text only', 'load', 'tables+lines', 'furniture', 'blocks', 'render'] as const;
const DOCUMENT_STAGES = ['open', 'first page', 'close'] as const;
type Stage = (typeof STAGES)[number] | (typeof DOCUMENT_STAGES)[number];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
}

async function timed<T>(into: Map<Stage, number>, stage: Stage, work: () => Promise<T> | T): Promise<T> {
  const start = performance.now();
  const result = await work();
  into.set(stage, (into.get(stage) ?? 0) + performance.now() - start);
  return result;
}

async function textOnly(body: Uint8Array): Promise<void> {
  const doc = await openPdf(body);
  try {
    for (let n = 1; n <= doc.numPages; n++) await (await doc.getPage(n)).getTextContent();
  } finally {
    await doc.destroy();
  }
}

/** One pass over the corpus: milliseconds spent per stage, and the pages read. */
async function pass(bodies: Uint8Array[]): Promise<{ ms: Map<Stage, number>; pages: number }> {
  const ms = new Map<Stage, number>();
  let pages = 0;
  for (const body of bodies) {
    await timed(ms, 'convert', () => pdfToMarkdown(body));
    await timed(ms, 'text only', () => textOnly(body));
    const doc = await timed(ms, 'open', () => openPdf(body));
    try {
      pages += doc.numPages;
      const raws: RawPage[] = [];
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        raws.push(await timed(ms, n === 1 ? 'first page' : 'load', () => readPage(page)));
      }
      const items = await timed(ms, 'tables+lines', () => raws.map((raw, i) => pageItems(raw, i + 1)));
      await timed(ms, 'furniture', () =>
        dropFurniture(
          items.map((page) => page.lines),
          raws.map((raw) => raw.height),
        ),
      );
      const blocks = await timed(ms, 'blocks', () =>
        blocksOf(items.flatMap((page) => [...page.lines, ...page.tables.map((t) => t.table)])),
      );
      await timed(ms, 'render', () => toMarkdown(blocks));
    } finally {
      await timed(ms, 'close', () => doc.destroy());
    }
  }
  return { ms, pages };
}

async function main(): Promise<void> {
  const passes = Number(process.argv[2] ?? 5);
  const dir = path.join(BENCH_DIR, 'pdfs');
  const files = readdirSync(dir)
    .filter((name) => name.endsWith('.pdf'))
    .sort();
  const bodies = files.map((name) => new Uint8Array(readFileSync(path.join(dir, name))));
  await pass(bodies.slice(0, 3));
  const runs: Awaited<ReturnType<typeof pass>>[] = [];
  for (let i = 0; i < passes; i++) runs.push(await pass(bodies));
  const pages = runs[0]!.pages;
  console.log(`${files.length} PDFs, ${pages} pages, median of ${passes} passes, ms per page:`);
  for (const stage of STAGES) {
    // A document's first page is timed apart: `load` is every page's mean.
    const msOf = (run: (typeof runs)[number]) =>
      (run.ms.get(stage) ?? 0) + (stage === 'load' ? (run.ms.get('first page') ?? 0) : 0);
    const perPage = median(runs.map((run) => msOf(run) / pages));
    console.log(`${stage.padEnd(14)} ${perPage.toFixed(2)}`);
  }
  console.log('ms per document:');
  for (const stage of DOCUMENT_STAGES) {
    const perDocument = median(runs.map((run) => (run.ms.get(stage) ?? 0) / files.length));
    console.log(`${stage.padEnd(14)} ${perDocument.toFixed(2)}`);
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
