import PDFDocument from 'pdfkit';
import { parse as parseYaml } from 'yaml';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';
import { eventually } from '../support/eventually';
import { pdfOfObjects } from '../support/pdfObjects';

/** A two-page report with known metadata, headings by font size and a bulleted list. */
function makeReport(): Promise<Buffer> {
  const doc = new PDFDocument({
    info: {
      Title: 'Harbour Report',
      Author: 'Ada Lovelace',
      Subject: 'The state of the quays',
      Keywords: 'harbour, quay, boats',
      CreationDate: new Date('2024-03-01T10:00:00Z'),
      ModDate: new Date('2024-03-02T11:30:00Z'),
      Creator: 'webloom tests',
      Producer: 'pdfkit',
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  doc.fontSize(26).text('Harbour Report').moveDown();
  doc
    .fontSize(11)
    .text(
      'The harbour at dawn is the quietest place in the town. The fishermen keep it that way, with careful work done by hand every morning.',
    );
  doc.moveDown().fontSize(16).text('Findings').moveDown(0.5);
  doc.fontSize(11).text('• Nets are mended by hand').text('• Boats are tied with one knot').moveDown();
  doc.text('A closing paragraph for the first page.');
  doc.addPage().fontSize(11).text('The second page starts here with more about the quay.');
  doc.end();
  return done;
}

/** Pages of this many text runs each: pdf.js's text cap per page (load.ts) is 20,000. */
const RUNS_PER_PAGE = 20_000;
const ENDLESS_PAGES = 2_000;

/**
 * A PDF of 2,000 pages that all draw one content stream of 20,000 tiny text runs: 40 million
 * runs to read, from 300 KB of file. No cap on runs per page bounds it; the reading's time
 * budget does.
 */
function endlessPdf(): Buffer {
  const content = Array.from(
    { length: RUNS_PER_PAGE },
    (_, i) => `BT /F1 2 Tf ${i % 250} ${i % 300} Td (x) Tj ET`,
  ).join('\n');
  const pages = Array.from({ length: ENDLESS_PAGES }, (_, i) => `${i + 5} 0 R`).join(' ');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages}] /Count ${ENDLESS_PAGES} >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    ...Array.from(
      { length: ENDLESS_PAGES },
      () =>
        '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 300] /Contents 3 0 R /Resources << /Font << /F1 4 0 R >> >> >>',
    ),
  ];
  return pdfOfObjects(objects);
}

/** What answers a PDF that cannot be read: Extract Markdown's spec has one conversion failure. */
const CONVERSION_FAILED = { status: 500, error: 'failed to convert HTML to Markdown' };
/** The test stack's CONVERT_TIMEOUT_MS (8 s) plus room for the download and the workflow. */
const ENDLESS_BOUND_MS = 25_000;
/** An ordinary PDF while the endless one is being read. */
const PROMPT_MS = 5_000;

let fixtures: FixtureServer;

beforeAll(async () => {
  const pdf = await makeReport();
  fixtures = await startFixtureServer({
    '/report.pdf': html(pdf, 'application/pdf'),
    '/download': html(pdf, 'application/octet-stream'),
    '/endless.pdf': html(endlessPdf(), 'application/pdf'),
    '/broken.pdf': html(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage'), 'application/pdf'),
  });
});

afterAll(() => fixtures.close());

describe('PDF', () => {
  const expected = {
    title: 'Harbour Report',
    author: 'Ada Lovelace',
    subject: 'The state of the quays',
    keywords: ['harbour', 'quay', 'boats'],
    created_at: '2024-03-01T10:00:00.000Z',
    modified_at: '2024-03-02T11:30:00.000Z',
    creator: 'webloom tests',
    producer: 'pdfkit',
    page_count: 2,
    pdf_version: '1.3',
  };

  it('turns a PDF into Markdown with headings, lists and paragraphs, and no rule between pages', async () => {
    const res = await post<{ content: string; metadata: Record<string, unknown> }>('/extract/markdown', {
      url: fixtures.url('/report.pdf'),
      metadata: true,
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata).toEqual(expected);
    expect(res.body.content).toBe(
      [
        '# Harbour Report',
        'The harbour at dawn is the quietest place in the town. The fishermen keep it that way, with careful work done by hand every morning.',
        '## Findings',
        '- Nets are mended by hand\n- Boats are tied with one knot',
        'A closing paragraph for the first page.',
        'The second page starts here with more about the quay.',
      ].join('\n\n'),
    );
  });

  it('detects a PDF by its magic bytes and puts its metadata in front matter', async () => {
    const res = await post<{ content: string }>('/extract/markdown', { url: fixtures.url('/download') });
    expect(res.status).toBe(200);
    const match = /^---\n([\s\S]*?)\n---\n\n# Harbour Report/.exec(res.body.content);
    expect(match).not.toBeNull();
    expect(parseYaml(match![1]!)).toEqual(expected);
  });
});

describe('PDF at effort max', () => {
  it('takes the document itself rather than the browser viewer', async () => {
    const res = await post<{ content: string; metadata: Record<string, unknown> }>('/extract/markdown', {
      url: fixtures.url('/report.pdf'),
      metadata: true,
      effort: 'max',
    });
    expect(res.status).toBe(200);
    expect(res.body.metadata.page_count).toBe(2);
    expect(res.body.content).toContain('## Findings');
  });
});

describe('a hostile PDF', () => {
  const extract = (path: string) =>
    post<{ content: string; error: string }>('/extract/markdown', { url: fixtures.url(path), nocache: true });

  it('of 40 million tiny text runs fails within its reading budget, an ordinary PDF served meanwhile', async () => {
    const started = Date.now();
    const endless = extract('/endless.pdf');
    await eventually(() => (fixtures.hits.get('/endless.pdf') ?? 0) > 0, {
      what: 'the endless PDF to be asked for',
      timeoutMs: 30_000,
    });
    const ordinary: number[] = [];
    for (let i = 0; i < 3; i++) {
      const at = Date.now();
      const res = await extract('/report.pdf');
      expect(res.status).toBe(200);
      expect(res.body.content).toContain('# Harbour Report');
      ordinary.push(Date.now() - at);
    }
    const res = await endless;
    expect({ status: res.status, error: res.body.error }).toEqual(CONVERSION_FAILED);
    expect(Date.now() - started).toBeLessThan(ENDLESS_BOUND_MS);
    expect(Math.max(...ordinary)).toBeLessThan(PROMPT_MS);
  }, 120_000);

  it('that is broken fails at once with a clear error', async () => {
    const res = await extract('/broken.pdf');
    expect({ status: res.status, error: res.body.error }).toEqual(CONVERSION_FAILED);
  });
});
