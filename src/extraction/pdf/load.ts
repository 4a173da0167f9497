import type { PDFPageProxy } from 'pdfjs-dist';
import type { TextItem } from 'pdfjs-dist/types/src/display/api';
import type { Fragment, RawPage, Rule } from './types';

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
  const ops = loadPdfjs().OPS;
  pathOps ??= new Set([
    ops.save,
    ops.restore,
    ops.transform,
    ops.constructPath,
    ops.fill,
    ops.eoFill,
    ops.stroke,
    ops.fillStroke,
    ops.closeStroke,
    ops.endPath,
  ]);
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
/** Ruling lines kept per page; a page past this gets no table detection. */
export const MAX_RULES_PER_PAGE = 4_000;
/** A filled or stroked rectangle this thin (points) is a line, not an area. */
const RULE_THICKNESS = 2;
const BOLD_FONT = /bold|black|heavy|semibold|demi|medi(?:um)?\b|-medi|\bbx|cmbx/i;
const MONO_FONT = /mono|courier|consol|cmtt|typewriter|menlo|code/i;

type Matrix = [number, number, number, number, number, number];

function multiply(m: Matrix, n: Matrix): Matrix {
  return [
    m[0] * n[0] + m[2] * n[1],
    m[1] * n[0] + m[3] * n[1],
    m[0] * n[2] + m[2] * n[3],
    m[1] * n[2] + m[3] * n[3],
    m[0] * n[4] + m[2] * n[5] + m[4],
    m[1] * n[4] + m[3] * n[5] + m[5],
  ];
}

function apply(m: Matrix, x: number, y: number): [number, number] {
  return [m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5]];
}

/** The thin painted rectangles of the operator list, in page space, following the transformation matrix. */
function rulesOf(fnArray: number[], argsArray: unknown[][], ops: Pdfjs['OPS']): Rule[] | undefined {
  const rules: Rule[] = [];
  const stack: Matrix[] = [];
  let ctm: Matrix = [1, 0, 0, 1, 0, 0];
  let box: [number, number, number, number] | undefined;
  for (let i = 0; i < fnArray.length; i++) {
    const fn = fnArray[i];
    const args = argsArray[i];
    if (fn === ops.save) stack.push(ctm);
    else if (fn === ops.restore) ctm = stack.pop() ?? ctm;
    else if (fn === ops.transform) ctm = multiply(ctm, args as Matrix);
    else if (fn === ops.constructPath) {
      const minMax = args?.[2] as number[] | undefined;
      box = minMax && minMax.length === 4 ? [minMax[0]!, minMax[1]!, minMax[2]!, minMax[3]!] : undefined;
    } else if (
      box &&
      (fn === ops.fill || fn === ops.eoFill || fn === ops.stroke || fn === ops.fillStroke || fn === ops.closeStroke)
    ) {
      const [ax, ay] = apply(ctm, box[0], box[1]);
      const [bx, by] = apply(ctm, box[2], box[3]);
      const rule = { x0: Math.min(ax, bx), y0: Math.min(ay, by), x1: Math.max(ax, bx), y1: Math.max(ay, by) };
      if (Math.min(rule.x1 - rule.x0, rule.y1 - rule.y0) <= RULE_THICKNESS) {
        if (rules.length >= MAX_RULES_PER_PAGE) return undefined;
        rules.push(rule);
      }
      box = undefined;
    } else if (fn === ops.endPath) box = undefined;
  }
  return rules;
}

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
