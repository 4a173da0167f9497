import type { PDFDocumentProxy } from 'pdfjs-dist';
import type { PageMetadata } from '../../types';
import { blocksOf } from './blocks';
import { dropFurniture } from './furniture';
import { linesOf } from './lines';
import { loadPdfjs, pdfWorker, readPage } from './load';
import { pdfMetadata } from './metadata';
import { barsOf, quotedLines } from './quotes';
import { readOutline } from './outline';
import { toMarkdown } from './render';
import { tablesOf } from './tables';
import type { Line, PageItem, RawPage, Table } from './types';

export { isPdf, isPdfType } from './detect';

/**
 * PDF to Markdown with pdf.js, in the order of the process: read each page's text runs and
 * ruling lines (load, rules), take out the tables their ruling lines draw (tables), join the rest
 * into lines (lines), mark those a quote's bar stands beside (quotes), drop page furniture
 * (furniture), make blocks of the lines: headings, lists, code, quotes, paragraphs (blocks,
 * headings, with the document's outline), and write them out (render).
 */

/** A page's lines and tables in the order the page's content gives them, and its quoted lines. */
export function pageItems(
  page: RawPage,
  n: number,
): { lines: Line[]; tables: { table: Table; before: number }[]; quoted: Line[] } {
  const { tables, used } = tablesOf(page.fragments, page.rules, n);
  const starts = new Map(tables.map(({ table, at }) => [at, table]));
  const lines: Line[] = [];
  const placed: { table: Table; before: number }[] = [];
  let run: RawPage['fragments'] = [];
  page.fragments.forEach((fragment, i) => {
    const table = starts.get(i);
    if (table) {
      lines.push(...linesOf(run, n));
      run = [];
      placed.push({ table, before: lines.length });
    }
    if (!used.has(i)) run.push(fragment);
  });
  lines.push(...linesOf(run, n));
  return { lines, tables: placed, quoted: quotedLines(lines, barsOf(page.rules)) };
}

export async function openPdf(body: Uint8Array): Promise<PDFDocumentProxy> {
  const { getDocument } = loadPdfjs();
  return getDocument({
    data: new Uint8Array(body),
    worker: await pdfWorker(),
    isEvalSupported: false,
    // No image is kept: decoded, a 100 KB file's image took 355 MB and a second of CPU, in the
    // background after the conversion had returned, outside its time budget.
    maxImageSize: 0,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
}

export async function pdfToMarkdown(body: Uint8Array): Promise<{ markdown: string; metadata: PageMetadata }> {
  const doc = await openPdf(body);
  try {
    const pages: ReturnType<typeof pageItems>[] = [];
    const heights: number[] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const raw = await readPage(page);
      page.cleanup();
      pages.push(pageItems(raw, n));
      heights.push(raw.height);
    }
    const kept = dropFurniture(
      pages.map((page) => page.lines),
      heights,
    );
    const items: PageItem[] = [];
    pages.forEach((page, p) => {
      // Furniture is dropped by identity, so a table keeps its place among the lines that stay.
      const stays = new Set(kept[p]);
      let next = 0;
      page.lines.forEach((line, i) => {
        while (page.tables[next]?.before === i) items.push(page.tables[next++]!.table);
        if (stays.has(line)) items.push(line);
      });
      while (next < page.tables.length) items.push(page.tables[next++]!.table);
    });
    const quoted = new Set(pages.flatMap((page) => page.quoted));
    const markdown = toMarkdown(blocksOf(items, await readOutline(doc), quoted));
    const info = (await doc.getMetadata()).info as unknown as Record<string, unknown>;
    return { markdown, metadata: pdfMetadata(info, doc.numPages) };
  } finally {
    await doc.destroy();
  }
}
