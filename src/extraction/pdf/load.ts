import type { PDFPageProxy } from 'pdfjs-dist';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';
import { ruleOperators, rulesOf } from './rules';
import type { Fragment, RawPage } from './types';

/** Stage 1: each page's positioned text runs, with their fonts' weight and pitch, and its ruling lines. */

type Pdfjs = typeof import('pdfjs-dist');

let pdfjs: Pdfjs | undefined;
export function loadPdfjs(): Pdfjs {
  // pdf.js ships ES modules only; Node 20.19+ loads them through require(). Loaded on first
  // use so processes that never see a PDF never pay for it.
  if (pdfjs) return pdfjs;
  // The legacy build's core-js swaps Array#push and JSON.parse for polyfills of edge cases V8 has
  // right for us (lengths past 2^32, JSON source text access) and that run slower, in every line of
  // the process after it, API and activities included: pdf.js runs as well on the natives, so they go back.
  const { push } = Array.prototype;
  const { parse } = JSON;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  pdfjs = require('pdfjs-dist/legacy/build/pdf.mjs') as Pdfjs;
  // Its in-process worker is loaded here rather than on the first document, so its polyfills are undone too.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = require('pdfjs-dist/legacy/build/pdf.worker.mjs');
  Array.prototype.push = push;
  JSON.parse = parse;
  return pdfjs;
}

/** pdf.js's message kinds for an answer to a request (its CallbackKind). */
const ANSWER = 1;
const FAILURE = 2;

/** pdf.js's stream message kind for a chunk sent (its StreamKind.ENQUEUE). */
const ENQUEUE = 4;

interface Message {
  sourceName?: string;
  targetName?: string;
  callback?: number;
  callbackId?: number;
  action?: string;
  data?: { evaluatorOptions?: Record<string, unknown> };
  stream?: number;
  chunk?: { fnArray?: number[]; argsArray?: unknown[] };
}

interface Port {
  postMessage(message: Message, transfer?: Transferable[]): void;
}

let worker: Promise<InstanceType<Pdfjs['PDFWorker']>> | undefined;

let pathOps: Set<number> | undefined;
/** The operators whose arguments rulesOf reads; every other operator's are dropped on the way. */
function ruleOps(): Set<number> {
  pathOps ??= ruleOperators(loadPdfjs().OPS);
  return pathOps;
}

/**
 * What crosses the port, cut to what this converter reads; the port clones every message, and
 * most of what pdf.js sends is for drawing, which is never done here:
 * - the evaluator is told fonts will be loaded as font faces, so it does not build and send an
 *   outline of every glyph shown (for drawing without font faces), the display side still
 *   loading none;
 * - an operator list chunk keeps the arguments of path operators only: shown text's glyph
 *   objects were most of the clone, a third of a page's conversion.
 */
function trimmed(message: Message): Message {
  const options = message.action === 'GetDocRequest' ? message.data?.evaluatorOptions : undefined;
  if (options)
    return { ...message, data: { ...message.data, evaluatorOptions: { ...options, disableFontFace: false } } };
  const chunk = message.stream === ENQUEUE ? message.chunk : undefined;
  if (!chunk?.fnArray || !chunk.argsArray) return message;
  const { fnArray, argsArray } = chunk;
  const keep = ruleOps();
  return {
    ...message,
    chunk: { ...chunk, argsArray: argsArray.map((args, i) => (keep.has(fnArray[i]!) ? args : null)) },
  };
}

/**
 * The process's one pdf.js worker, in-process, shared by its documents, its port guarded and its
 * messages trimmed (see trimmed). pdf.js hands each answer over by structuredClone, which
 * overflows the stack on a deeply nested outline (thousands of levels, a few hundred kilobytes of
 * PDF), in a callback that loses the error: the request was never answered and the process (a
 * reading thread) died of the unhandled rejection. The guard answers such a request with the
 * error instead, so its promise rejects.
 */
export function pdfWorker(): Promise<InstanceType<Pdfjs['PDFWorker']>> {
  worker ??= (async () => {
    const created = new (loadPdfjs().PDFWorker)({ verbosity: 0 });
    await created.promise;
    const port = created.port as unknown as Port;
    const post = port.postMessage.bind(port);
    port.postMessage = (message, transfer) => {
      try {
        post(trimmed(message), transfer);
      } catch (err) {
        if (message.callback !== ANSWER) throw err;
        const { sourceName, targetName, callbackId } = message;
        const reason = { name: 'UnknownErrorException', message: `unanswerable: ${String(err)}` };
        post({ sourceName, targetName, callback: FAILURE, callbackId, reason } as Message);
      }
    };
    return created;
  })();
  return worker;
}

/** Text runs kept per page: past this a page is noise (or an attack), and its rest is dropped. */
export const MAX_FRAGMENTS_PER_PAGE = 20_000;
const BOLD_FONT = /bold|black|heavy|semibold|demi|medi(?:um)?\b|-medi|\bbx|cmbx/i;
const MONO_FONT = /mono|courier|consol|cmtt|typewriter|menlo|code/i;

interface FontFacts {
  bold: boolean;
  mono: boolean;
}

function fontFacts(page: PDFPageProxy, fontName: string, family: string | undefined): FontFacts {
  const objs = page.commonObjs;
  const name = objs.has(fontName) ? String((objs.get(fontName) as { name?: string } | null)?.name ?? '') : '';
  return { bold: BOLD_FONT.test(name), mono: family === 'monospace' || MONO_FONT.test(name) };
}

/**
 * Run ends closer than this (font sizes) on one baseline could not be two table cells: tables
 * here and in openTables.ts need two cells in a row, set apart by padding or a gutter.
 */
const CELL_GAP = 0.5;
/** Baselines closer than this (points) are one row for the table hint. */
const ROW_BAND = 2;

/**
 * Whether two runs of the page sit side by side on a baseline, apart: the least a table needs,
 * ruled or not. Bucketed by baseline and sorted within a bucket, so n log n on hostile pages.
 */
function mayHoldTable(items: TextItem[]): boolean {
  const rows = new Map<number, TextItem[]>();
  for (const item of items) {
    if (item.str.trim() === '') continue;
    const key = Math.round(item.transform[5] / ROW_BAND);
    const row = rows.get(key);
    if (row) row.push(item);
    else rows.set(key, [item]);
  }
  for (const row of rows.values()) {
    if (row.length < 2) continue;
    row.sort((a, b) => a.transform[4] - b.transform[4]);
    for (let i = 1; i < row.length; i++) {
      const prev = row[i - 1]!;
      const size = Math.hypot(prev.transform[2], prev.transform[3]) || prev.height;
      if (row[i]!.transform[4] - (prev.transform[4] + prev.width) >= CELL_GAP * size) return true;
    }
  }
  return false;
}

export async function readPage(page: PDFPageProxy): Promise<RawPage> {
  const { OPS } = loadPdfjs();
  const content = await page.getTextContent();
  const items = content.items.filter((item): item is TextItem => 'str' in item).slice(0, MAX_FRAGMENTS_PER_PAGE);
  // The operator list costs about as much again as the text: it is read only where it can change
  // the result, for fonts no earlier page sent (their names tell weight and pitch) or for the
  // ruling lines of a page whose runs could be a table.
  const fontsKnown = items.every((item) => page.commonObjs.has(item.fontName));
  const operators = !fontsKnown || mayHoldTable(items) ? await page.getOperatorList() : undefined;
  const [, , width, height] = page.view as [number, number, number, number];
  const facts = new Map<string, FontFacts>();
  const fragments: Fragment[] = [];
  for (const text of items) {
    let font = facts.get(text.fontName);
    if (!font) {
      font = fontFacts(page, text.fontName, content.styles[text.fontName]?.fontFamily);
      facts.set(text.fontName, font);
    }
    const [, , c, d, x, y] = text.transform as number[];
    fragments.push({
      str: text.str,
      x: x!,
      y: y!,
      width: text.width,
      size: Math.hypot(c!, d!) || text.height,
      bold: font.bold,
      mono: font.mono,
      eol: text.hasEOL,
    });
  }
  const rules = operators ? (rulesOf(operators.fnArray, operators.argsArray as unknown[][], OPS) ?? []) : [];
  return { width, height, fragments, rules };
}
