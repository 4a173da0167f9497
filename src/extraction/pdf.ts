import type { TextItem } from 'pdfjs-dist/types/src/display/api';
import type { PageMetadata } from '../types';

/**
 * PDF to Markdown with pdf.js: text runs become lines by their baseline, lines become
 * paragraphs by the gaps between them, larger type becomes headings, bullet and numbered
 * lines become list items, and pages are separated by a rule. The document information
 * dictionary fills the PDF fields of PageMetadata.
 */

type Pdfjs = typeof import('pdfjs-dist');

let pdfjs: Pdfjs | undefined;
function loadPdfjs(): Pdfjs {
  // pdf.js ships ES modules only; Node 20.19+ loads them through require(). Loaded on first
  // use so processes that never see a PDF never pay for it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  pdfjs ??= require('pdfjs-dist/legacy/build/pdf.mjs') as Pdfjs;
  return pdfjs;
}

/** A line this much taller than the body text is a heading; more still, a top heading. */
const HEADING_RATIO = 1.2;
const TITLE_RATIO = 1.6;
/** A vertical gap this many line heights wide starts a new paragraph. */
const PARAGRAPH_GAP = 1.45;
const BULLET = /^\s*([•◦▪‣●○■□–\-*])\s+/;
const NUMBERED = /^\s*(\d{1,3}|[a-z])[.)]\s+/;

interface Line {
  text: string;
  size: number;
  y: number;
}

export function isPdfType(contentType: string): boolean {
  return /^application\/(x-)?pdf\b/i.test(contentType);
}

/** By content type, or by the `%PDF-` magic bytes, which servers labelling PDFs as octet streams still send. */
export function isPdf(body: Uint8Array, contentType: string): boolean {
  if (isPdfType(contentType)) return true;
  return Buffer.from(body.subarray(0, 5)).toString('latin1') === '%PDF-';
}

/** `D:20240131120000+01'00'` to ISO 8601. */
function pdfDate(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const m = /^(?:D:)?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?(Z|[+-]\d{2}'?\d{2}'?)?/.exec(value.trim());
  if (!m) return undefined;
  const [, y, mo = '01', d = '01', h = '00', mi = '00', s = '00', tz] = m;
  let zone = 'Z';
  if (tz && tz !== 'Z') zone = `${tz.slice(0, 3)}:${tz.replace(/'/g, '').slice(3, 5) || '00'}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${zone}`);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() ? value.trim() : undefined;
}

function linesOf(items: TextItem[]): Line[] {
  const lines: Line[] = [];
  let current: Line | undefined;
  for (const item of items) {
    const size = Math.hypot(item.transform[2] as number, item.transform[3] as number) || item.height;
    const y = item.transform[5] as number;
    if (current && Math.abs(current.y - y) <= Math.max(2, size * 0.3)) {
      const joiner = current.text.endsWith(' ') || item.str.startsWith(' ') || !current.text ? '' : ' ';
      current.text += (item.str ? joiner : '') + item.str;
      current.size = Math.max(current.size, item.str.trim() ? size : 0);
    } else {
      if (current?.text.trim()) lines.push(current);
      current = { text: item.str, size: item.str.trim() ? size : 0, y };
    }
    if (item.hasEOL && current) {
      if (current.text.trim()) lines.push(current);
      current = undefined;
    }
  }
  if (current?.text.trim()) lines.push(current);
  return lines.map((line) => ({ ...line, text: line.text.replace(/\s+/g, ' ').trim() }));
}

function median(values: number[]): number {
  const sorted = values.filter((v) => v > 0).sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** One page's lines as Markdown blocks. */
function pageMarkdown(lines: Line[], bodySize: number): string {
  const blocks: string[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length > 0) blocks.push(paragraph.join(' ').replace(/(\w)- (\w)/g, '$1$2'));
    paragraph = [];
  };
  lines.forEach((line, i) => {
    const previous = lines[i - 1];
    const gap = previous ? previous.y - line.y : 0;
    if (bodySize > 0 && line.size >= bodySize * HEADING_RATIO && line.text.length < 200) {
      flush();
      blocks.push(`${line.size >= bodySize * TITLE_RATIO ? '#' : '##'} ${line.text}`);
      return;
    }
    const bullet = BULLET.exec(line.text);
    const numbered = NUMBERED.exec(line.text);
    if (bullet || numbered) {
      flush();
      blocks.push(
        bullet ? `- ${line.text.slice(bullet[0].length)}` : `${numbered![1]}. ${line.text.slice(numbered![0].length)}`,
      );
      return;
    }
    const lastBlock = blocks[blocks.length - 1];
    const continuesItem =
      paragraph.length === 0 &&
      lastBlock &&
      /^(- |\d+\. )/.test(lastBlock) &&
      gap > 0 &&
      gap < line.size * PARAGRAPH_GAP;
    if (continuesItem) {
      blocks[blocks.length - 1] = `${lastBlock} ${line.text}`;
      return;
    }
    if (previous && (gap > Math.max(line.size, previous.size) * PARAGRAPH_GAP || gap < 0)) flush();
    paragraph.push(line.text);
  });
  flush();
  const isItem = (block: string | undefined) => block !== undefined && /^(- |\d+\. )/.test(block);
  // Items of one list sit on consecutive lines, or Markdown would make a loose list of them.
  return blocks
    .map((block, i) => (i === 0 ? '' : isItem(block) && isItem(blocks[i - 1]) ? '\n' : '\n\n') + block)
    .join('');
}

export async function pdfToMarkdown(body: Uint8Array): Promise<{ markdown: string; metadata: PageMetadata }> {
  const { getDocument } = loadPdfjs();
  const doc = await getDocument({
    data: new Uint8Array(body),
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    verbosity: 0,
  }).promise;
  try {
    const pages: Line[][] = [];
    for (let n = 1; n <= doc.numPages; n++) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      pages.push(linesOf(content.items.filter((item): item is TextItem => 'str' in item)));
      page.cleanup();
    }
    const bodySize = median(pages.flat().map((line) => line.size));
    const markdown = pages
      .map((lines) => pageMarkdown(lines, bodySize))
      .filter(Boolean)
      .join('\n\n---\n\n');
    const info = (await doc.getMetadata()).info as unknown as Record<string, unknown>;
    const keywords = text(info.Keywords)
      ?.split(/[,;]/)
      .map((k) => k.trim())
      .filter(Boolean);
    const metadata: PageMetadata = {
      title: text(info.Title),
      author: text(info.Author),
      subject: text(info.Subject),
      keywords: keywords && keywords.length > 0 ? keywords : undefined,
      created_at: pdfDate(info.CreationDate),
      modified_at: pdfDate(info.ModDate),
      creator: text(info.Creator),
      producer: text(info.Producer),
      page_count: doc.numPages,
      pdf_version: text(info.PDFFormatVersion),
    };
    for (const key of Object.keys(metadata) as (keyof PageMetadata)[]) {
      if (metadata[key] === undefined) delete metadata[key];
    }
    return { markdown, metadata };
  } finally {
    await doc.destroy();
  }
}
