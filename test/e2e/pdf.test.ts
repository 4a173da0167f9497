import PDFDocument from 'pdfkit';
import { parse as parseYaml } from 'yaml';
import { post } from '../support/api';
import { html, startFixtureServer, type FixtureServer } from '../support/fixtureServer';

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

let fixtures: FixtureServer;

beforeAll(async () => {
  const pdf = await makeReport();
  fixtures = await startFixtureServer({
    '/report.pdf': html(pdf, 'application/pdf'),
    '/download': html(pdf, 'application/octet-stream'),
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
