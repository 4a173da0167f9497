import path from 'node:path';
import { deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';
import { pdfToMarkdown } from '../../src/extraction/pdf';
import { loadPdfjs, MAX_FRAGMENTS_PER_PAGE, pdfWorker } from '../../src/extraction/pdf/load';
import { MAX_OUTLINE_ENTRIES } from '../../src/extraction/pdf/outline';
import { MAX_RULES_PER_PAGE } from '../../src/extraction/pdf/rules';
import { readPage } from '../../src/reading/readPage';
import { pdfOfObjects } from '../support/pdfObjects';

/** Small PDFs drawn here, one stage of the PDF path each, and hostile ones that must stay bounded. */

type Doc = PDFKit.PDFDocument;

/** A font file pdfkit embeds (the standard 14 it only names): one pdf.js ships. */
const EMBEDDED_FONT = path.join(
  path.dirname(require.resolve('pdfjs-dist/package.json')),
  'standard_fonts',
  'LiberationSans-Regular.ttf',
);

/** A message as pdf.js's in-process port delivers it: a request's, a common object's or a stream chunk's. */
interface Crossed {
  action?: string;
  data?: unknown[];
  chunk?: { fnArray?: number[]; argsArray?: unknown[] };
}

function makePdf(draw: (doc: Doc) => void, size: [number, number] = [595, 842]): Promise<Buffer> {
  const doc = new PDFDocument({ size, margin: 50 });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve) => doc.on('end', () => resolve(Buffer.concat(chunks))));
  draw(doc);
  doc.end();
  return done;
}

const at = (doc: Doc, text: string, x: number, y: number) => doc.text(text, x, y, { lineBreak: false });

async function markdownOf(draw: (doc: Doc) => void, size?: [number, number]): Promise<string> {
  return (await pdfToMarkdown(await makePdf(draw, size))).markdown;
}

/** A ruled grid at (x, y) with its cells' lines of text; row heights fit the most lines in the row. */
function ruledTable(doc: Doc, x: number, y: number, widths: number[], rows: string[][][]): number {
  const lineHeight = 14;
  const heights = rows.map((row) => Math.max(...row.map((cell) => cell.length)) * lineHeight + 6);
  const width = widths.reduce((a, b) => a + b, 0);
  const height = heights.reduce((a, b) => a + b, 0);
  doc.font('Helvetica').fontSize(10).lineWidth(0.5);
  let top = y;
  rows.forEach((row, r) => {
    doc
      .moveTo(x, top)
      .lineTo(x + width, top)
      .stroke();
    let left = x;
    row.forEach((cell, c) => {
      cell.forEach((line, i) => at(doc, line, left + 4, top + 4 + i * lineHeight));
      left += widths[c]!;
    });
    top += heights[r]!;
  });
  doc
    .moveTo(x, top)
    .lineTo(x + width, top)
    .stroke();
  let left = x;
  for (const w of [0, ...widths]) {
    left += w;
    doc
      .moveTo(left, y)
      .lineTo(left, y + height)
      .stroke();
  }
  return y + height;
}

/**
 * A one-page PDF written object by object, for outlines pdfkit cannot make: `outline` gives each
 * entry's title and the index of its parent entry (-1 for the top).
 */
function outlinedPdf(
  lines: { text: string; size: number; y: number }[],
  outline: { title: string; parent: number }[],
): Buffer {
  const first = 7;
  const children = outline.map(() => [] as number[]);
  const tops: number[] = [];
  outline.forEach(({ parent }, i) => (parent < 0 ? tops : children[parent]!).push(i));
  const ref = (i: number) => `${first + i} 0 R`;
  const content = lines.map(({ text, size, y }) => `BT /F1 ${size} Tf 50 ${y} Td (${text}) Tj ET`).join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R /Outlines 3 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    `<< /Type /Outlines /First ${ref(tops[0]!)} /Last ${ref(tops[tops.length - 1]!)} >>`,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 5 0 R /Resources << /Font << /F1 6 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const siblings = (list: number[]) => list.map((entry, k) => ({ entry, prev: list[k - 1], next: list[k + 1] }));
  const entries = new Array<string>(outline.length);
  for (const list of [tops, ...children])
    for (const { entry, prev, next } of siblings(list)) {
      const { title, parent } = outline[entry]!;
      const kids = children[entry]!;
      entries[entry] =
        `<< /Title (${title}) /Parent ${parent < 0 ? '3 0 R' : ref(parent)}` +
        (prev === undefined ? '' : ` /Prev ${ref(prev)}`) +
        (next === undefined ? '' : ` /Next ${ref(next)}`) +
        (kids.length ? ` /First ${ref(kids[0]!)} /Last ${ref(kids[kids.length - 1]!)}` : '') +
        ' >>';
    }
  return pdfOfObjects([...objects, ...entries]);
}

/**
 * A one-page PDF whose page shows `text` (x, y, words) and places a form XObject drawing `form`
 * (content stream operators) with the form's own `matrix`.
 */
function formPdf(text: [number, number, string][], form: string, matrix: number[]): Buffer {
  const page = [...text.map(([x, y, words]) => `BT /F1 10 Tf ${x} ${y} Td (${words}) Tj ET`), 'q /Fm1 Do Q'].join('\n');
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R ' +
      '/Resources << /Font << /F1 5 0 R >> /XObject << /Fm1 6 0 R >> >> >>',
    `<< /Length ${page.length} >>\nstream\n${page}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Type /XObject /Subtype /Form /BBox [-10 -10 1000 1000] /Matrix [${matrix.join(' ')}] /Length ${form.length} >>\n` +
      `stream\n${form}\nendstream`,
  ];
  return pdfOfObjects(objects);
}

/** How long memory is watched after the conversion, for the decoding pdf.js does in the background. */
const IMAGE_WATCH_MS = 3_000;

/** Pixels of the image imagePdf draws: 100 million, 100 MB once decoded, from a file of 100 KB. */
const IMAGE_SIDE = 10_000;
const IMAGE_BYTES = IMAGE_SIDE * IMAGE_SIDE;

/** A one-page PDF of a line of text and a grey image drawn over the page, its pixels all zero. */
function imagePdf(): Buffer {
  const pixels = deflateSync(Buffer.alloc(IMAGE_SIDE * IMAGE_SIDE));
  const content = 'BT /F1 12 Tf 50 800 Td (A caption under a large image.) Tj ET\nq 495 0 0 600 50 100 cm /Im1 Do Q';
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents 4 0 R ' +
      '/Resources << /Font << /F1 5 0 R >> /XObject << /Im1 6 0 R >> >> >>',
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n', 'latin1')];
  const offsets: number[] = [];
  let length = parts[0]!.length;
  const add = (chunk: Buffer) => {
    parts.push(chunk);
    length += chunk.length;
  };
  objects.forEach((body, i) => {
    offsets.push(length);
    add(Buffer.from(`${i + 1} 0 obj\n${body}\nendobj\n`, 'latin1'));
  });
  offsets.push(length);
  add(
    Buffer.from(
      `6 0 obj\n<< /Type /XObject /Subtype /Image /Width ${IMAGE_SIDE} /Height ${IMAGE_SIDE} ` +
        `/ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode /Length ${pixels.length} >>\nstream\n`,
      'latin1',
    ),
  );
  add(pixels);
  add(Buffer.from('\nendstream\nendobj\n', 'latin1'));
  const count = offsets.length + 1;
  const xref = [
    `xref\n0 ${count}\n0000000000 65535 f \n`,
    ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`),
  ];
  add(
    Buffer.from(`${xref.join('')}trailer\n<< /Size ${count} /Root 1 0 R >>\nstartxref\n${length}\n%%EOF\n`, 'latin1'),
  );
  return Buffer.concat(parts);
}

describe('PDF to Markdown', () => {
  test('a ruled table becomes a pipe table, a cell wrapped over two lines one cell', async () => {
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica').fontSize(11);
      at(doc, 'The quays and their boats:', 50, 60);
      ruledTable(
        doc,
        50,
        90,
        [120, 80, 160],
        [
          [['Name'], ['Kind'], ['Note']],
          [['alpha'], ['one'], ['first line', 'second line']],
          [['beta'], ['two'], ['short']],
        ],
      );
    });
    expect(markdown).toContain(
      '| Name | Kind | Note |\n| --- | --- | --- |\n| alpha | one | first line second line |\n| beta | two | short |',
    );
    expect(markdown.startsWith('The quays and their boats:')).toBe(true);
  });

  test('a word a narrow column wraps without a hyphen joins again, words wrapped between them keep their space', async () => {
    const markdown = await markdownOf((doc) => {
      ruledTable(
        doc,
        50,
        90,
        [70, 140],
        [
          [['Layer'], ['Note']],
          [['Architectur', 'es'], ['split in a narrow column']],
          [['Two', 'words'], ['kept apart']],
        ],
      );
    });
    expect(markdown).toBe(
      '| Layer | Note |\n| --- | --- |\n| Architectures | split in a narrow column |\n| Two words | kept apart |',
    );
  });

  test("a table whose rules a form XObject draws is read in the form's place, saves inside it kept inside", async () => {
    // The grid in the form's own space, scaled by 2 and moved to (50, 400) by its matrix: columns
    // of 120 points from x 50, rows of 30 points from y 400. A save and restore inside the form
    // moves nothing, and a stray restore cannot undo the form's matrix.
    const grid = [
      '0.5 w',
      'q 1 0 0 1 500 500 cm Q',
      'Q',
      ...[0, 60, 120, 180].map((x) => `${x} 0 m ${x} 30 l S`),
      ...[0, 15, 30].map((y) => `0 ${y} m 180 ${y} l S`),
    ].join('\n');
    const words: [number, number, string][] = [
      [55, 440, 'Name'],
      [175, 440, 'Kind'],
      [295, 440, 'Note'],
      [55, 410, 'alpha'],
      [175, 410, 'one'],
      [295, 410, 'first'],
    ];
    const { markdown } = await pdfToMarkdown(formPdf(words, grid, [2, 0, 0, 2, 50, 400]));
    expect(markdown).toBe('| Name | Kind | Note |\n| --- | --- | --- |\n| alpha | one | first |');
  });

  test('a table going on over a page break is one table, its repeated header row once', async () => {
    const markdown = await markdownOf((doc) => {
      ruledTable(
        doc,
        50,
        700,
        [100, 100],
        [
          [['Boat'], ['Berth']],
          [['Ada'], ['1']],
          [['Bea'], ['2']],
        ],
      );
      doc.addPage();
      ruledTable(
        doc,
        50,
        60,
        [100, 100],
        [
          [['Boat'], ['Berth']],
          [['Cy'], ['3']],
        ],
      );
    });
    expect(markdown).toBe('| Boat | Berth |\n| --- | --- |\n| Ada | 1 |\n| Bea | 2 |\n| Cy | 3 |');
  });

  test('a table ruled by horizontal lines only becomes a pipe table, a wrapped line in its row', async () => {
    const markdown = await markdownOf((doc) => {
      doc.lineWidth(0.5);
      for (const y of [100, 125, 180]) doc.moveTo(50, y).lineTo(400, y).stroke();
      doc.font('Helvetica').fontSize(10);
      at(doc, 'Code', 55, 108);
      at(doc, 'Meaning', 150, 108);
      at(doc, 'E1', 55, 132);
      at(doc, 'The first fault,', 150, 132);
      at(doc, 'said twice', 150, 146);
      at(doc, 'E2', 55, 160);
      at(doc, 'Second', 150, 160);
    });
    expect(markdown).toBe('| Code | Meaning |\n| --- | --- |\n| E1 | The first fault, said twice |\n| E2 | Second |');
  });

  test("headings come from the document's own sizes and weights though code is most of its lines", async () => {
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica-Bold').fontSize(15);
      at(doc, 'Usage', 50, 60);
      doc.font('Helvetica').fontSize(11);
      at(doc, 'Call the tool with a path; it prints the boats moored there.', 50, 90);
      doc.font('Courier').fontSize(10);
      for (let i = 0; i < 12; i++) at(doc, `${i % 3 ? '  ' : ''}boats --quay ${i}`, 60, 120 + i * 12);
      doc.font('Helvetica-Bold').fontSize(11);
      at(doc, 'Options', 50, 290);
      doc.font('Helvetica').fontSize(11);
      at(doc, 'Every option has a long and a short form.', 50, 315);
    });
    expect(markdown).toBe(
      [
        '# Usage',
        'Call the tool with a path; it prints the boats moored there.',
        '```\n' + Array.from({ length: 12 }, (_, i) => `${i % 3 ? '  ' : ''}boats --quay ${i}`).join('\n') + '\n```',
        '## Options',
        'Every option has a long and a short form.',
      ].join('\n\n'),
    );
  });

  test('a ligature given as its own run joins its word, and a hyphenated line break joins', async () => {
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica').fontSize(11);
      let x = 50;
      for (const part of ['The o', 'ff', 'icial record of the compres-']) {
        at(doc, part, x, 60);
        x += doc.widthOfString(part);
      }
      at(doc, 'sion ratio.', 50, 74);
    });
    expect(markdown).toBe('The official record of the compression ratio.');
  });

  test('running headers, page numbers, contents with dot leaders and page breaks leave no trace', async () => {
    const markdown = await markdownOf((doc) => {
      for (let page = 1; page <= 3; page++) {
        if (page > 1) doc.addPage();
        doc.font('Helvetica').fontSize(9);
        at(doc, `Harbour report, chapter ${page}`, 50, 30);
        at(doc, `Page ${page} of 3`, 270, 800);
        doc.fontSize(11);
        if (page === 1) {
          at(doc, 'Contents', 50, 80);
          ['Quays', 'Boats', 'Nets'].forEach((title, i) =>
            at(doc, `${title} ${'.'.repeat(40)} ${i + 2}`, 50, 100 + i * 14),
          );
        } else at(doc, `${page === 2 ? 'Quays' : 'Boats'} come on page ${page}, after a full stop.`, 50, 80);
      }
    });
    expect(markdown).toBe('Quays come on page 2, after a full stop.\n\nBoats come on page 3, after a full stop.');
  });

  test('a running head that changes with the section goes with its page number, a heading starting so stays', async () => {
    const markdown = await markdownOf((doc) => {
      ['QUAYS', 'BOATS', 'NETS'].forEach((section, i) => {
        if (i > 0) doc.addPage();
        doc.font('Helvetica').fontSize(9);
        at(doc, section, 50, 30);
        at(doc, String(i + 1), 540, 30);
        if (i === 1) at(doc.font('Helvetica-Bold').fontSize(16), '2 Boats', 50, 56);
        doc.font('Helvetica').fontSize(11);
        at(doc, `Text about ${section.toLowerCase()}, and no more.`, 50, 90);
      });
    });
    expect(markdown).toBe(
      'Text about quays, and no more.\n\n# 2 Boats\n\nText about boats, and no more.\n\nText about nets, and no more.',
    );
  });

  test("headings take their levels from the document's outline, a title wrapped over two lines one heading", async () => {
    const markdown = await markdownOf((doc) => {
      const heading = (text: string, y: number) => {
        doc.font('Helvetica-Bold').fontSize(12);
        at(doc, text, 50, y);
      };
      const paragraph = (text: string, y: number) => {
        doc.font('Helvetica').fontSize(11);
        at(doc, text, 50, y);
      };
      doc.font('Helvetica-Bold').fontSize(18);
      at(doc, 'Harbour Guide', 50, 50);
      heading('Moorings', 90);
      paragraph('Boats moor along the north quay.', 115);
      heading('Winter berths', 150);
      paragraph('In winter the boats move inside the mole.', 175);
      heading('Fees', 210);
      paragraph('Fees are paid at the office.', 235);
      heading('Charges for boats that stay', 270);
      heading('over the winter', 285);
      paragraph('They pay by the month.', 310);
      const moorings = doc.outline.addItem('Moorings');
      moorings.addItem('Winter berths');
      doc.outline.addItem('Fees').addItem('Charges for boats that stay over the winter');
    });
    expect(markdown).toBe(
      [
        '# Harbour Guide',
        '## Moorings',
        'Boats moor along the north quay.',
        '### Winter berths',
        'In winter the boats move inside the mole.',
        '## Fees',
        'Fees are paid at the office.',
        '### Charges for boats that stay over the winter',
        'They pay by the month.',
      ].join('\n\n'),
    );
  });

  test("lines set in beside a quote's bar are a blockquote, its paragraphs apart by a '>' line", async () => {
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica').fontSize(11);
      at(doc, 'The harbour rules are short.', 50, 60);
      // A browser prints a blockquote's 3 px left border as a 2.25 point bar, the text set in beside it.
      doc.rect(50, 88, 2.25, 56).fill('#bbbbbb');
      doc.fillColor('#333333');
      at(doc, 'The quay closes at dusk', 62, 92);
      at(doc, 'in winter.', 62, 106);
      at(doc, 'Boats moored late pay twice.', 62, 130);
      doc.fillColor('#111111');
      at(doc, 'So said the harbour master.', 50, 166);
    });
    expect(markdown).toBe(
      'The harbour rules are short.\n\n> The quay closes at dusk in winter.\n>\n> Boats moored late pay twice.\n\n' +
        'So said the harbour master.',
    );
  });

  test('every quote of a page with more quotes at one left edge than bars looked at per line is marked', async () => {
    const quotes = Array.from({ length: 10 }, (_, i) => `Quoted rule number ${i + 1}.`);
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica').fontSize(11);
      quotes.forEach((quote, i) => {
        const top = 60 + i * 40;
        doc.fillColor('#111111');
        at(doc, `Plain note ${i + 1}.`, 50, top);
        doc.rect(50, top + 16, 2.25, 16).fill('#bbbbbb');
        doc.fillColor('#333333');
        at(doc, quote, 62, top + 20);
      });
    });
    for (const quote of quotes) expect(markdown).toContain(`> ${quote}`);
  });

  test("set-in lines with no bar, a list's bullets drawn as shapes and text beside a ruling line are no quote", async () => {
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica').fontSize(11);
      at(doc, 'Moor at one of:', 50, 60);
      for (const [i, quay] of ['the north quay', 'the old mole'].entries()) {
        doc.circle(60, 84 + i * 18, 2).fill('#111111');
        at(doc, quay, 68, 80 + i * 18);
      }
      at(doc, 'A line set in, as a note is.', 66, 130);
      doc.lineWidth(1).moveTo(50, 160).lineTo(50, 200).stroke();
      at(doc, 'Text beside a ruled line.', 56, 175);
    });
    expect(markdown).not.toContain('>');
    expect(markdown).toContain('the north quay');
    expect(markdown).toContain('Text beside a ruled line.');
  });

  test('bulleted and numbered lists keep their nesting', async () => {
    const markdown = await markdownOf((doc) => {
      doc.font('Helvetica').fontSize(11);
      at(doc, '• Nets', 60, 60);
      at(doc, '• Mended by hand', 80, 74);
      at(doc, '1. Each morning', 100, 88);
      at(doc, '• Boats', 60, 102);
    });
    expect(markdown).toBe('- Nets\n   - Mended by hand\n      1. Each morning\n- Boats');
  });
});

/** Taken before any test loads pdf.js, whose legacy build swaps them for slower polyfills. */
const nativePush = Array.prototype.push;
const nativeParse = JSON.parse;

describe('PDF to Markdown in a shared process', () => {
  it("leaves the process's own Array#push and JSON.parse in place", async () => {
    await markdownOf((doc) => doc.text('One line.'));
    expect(Array.prototype.push).toBe(nativePush);
    expect(JSON.parse).toBe(nativeParse);
  });

  it('reads the operator list of a prose page only for fonts no earlier page brought', async () => {
    const pdf = await makePdf((doc) => {
      doc.font('Helvetica').fontSize(11).text('A first page of prose, in one font.');
      doc.addPage().font('Helvetica').fontSize(11).text('A second page of prose, in the same font.');
    });
    // pdf.js does not export its page class: its prototype is taken from a page.
    const probe = await loadPdfjs().getDocument({ data: new Uint8Array(pdf) }).promise;
    const pages = Object.getPrototypeOf(await probe.getPage(1)) as { getOperatorList: () => unknown };
    await probe.destroy();
    const reads = jest.spyOn(pages, 'getOperatorList');
    try {
      const { markdown } = await pdfToMarkdown(pdf);
      expect(markdown).toContain('A second page of prose');
      expect(reads).toHaveBeenCalledTimes(1);
    } finally {
      reads.mockRestore();
    }
  });
});

describe("what crosses pdf.js's in-process port", () => {
  it('carries no glyph outlines and no glyphs of shown text, the ruling lines still', async () => {
    const pdf = await makePdf((doc) => {
      doc.font(EMBEDDED_FONT).fontSize(11).text('Prose in a font the document embeds, in a few words.');
      ruledTable(
        doc,
        50,
        200,
        [120, 120],
        [
          [['Name'], ['Value']],
          [['a'], ['1']],
        ],
      );
    });
    const port = (await pdfWorker()).port as unknown as {
      addEventListener(type: 'message', listener: (event: { data: Crossed }) => void): void;
      removeEventListener(type: 'message', listener: (event: { data: Crossed }) => void): void;
    };
    const { OPS } = loadPdfjs();
    const crossed: string[] = [];
    // The text shown, as operators: what would be cut is seen, so the test cannot pass by seeing nothing.
    let shown = 0;
    const listener = ({ data }: { data: Crossed }) => {
      if (data.action === 'commonobj' && data.data?.[1] === 'FontPath') crossed.push('glyph outline');
      data.chunk?.fnArray?.forEach((fn, i) => {
        if (fn !== OPS.showText) return;
        shown++;
        if (data.chunk?.argsArray?.[i]) crossed.push('glyphs');
      });
    };
    port.addEventListener('message', listener);
    try {
      const { markdown } = await pdfToMarkdown(pdf);
      expect(markdown).toContain('| Name | Value |');
    } finally {
      port.removeEventListener('message', listener);
    }
    expect(shown).toBeGreaterThan(0);
    expect(new Set(crossed)).toEqual(new Set());
  });
});

describe('a PDF read as model input', () => {
  it('is converted once: its main content is all of it', async () => {
    const pdf = await makePdf((doc) => {
      doc.font('Helvetica').fontSize(11).text('A short PDF for an Extract JSON request.');
    });
    const port = (await pdfWorker()).port as unknown as {
      addEventListener(type: 'message', listener: (event: { data: Crossed }) => void): void;
      removeEventListener(type: 'message', listener: (event: { data: Crossed }) => void): void;
    };
    let opened = 0;
    const listener = ({ data }: { data: Crossed }) => {
      if (data.action === 'GetDocRequest') opened++;
    };
    port.addEventListener('message', listener);
    let input;
    try {
      input = await readPage(
        { body: pdf, contentType: 'application/pdf', finalUrl: 'http://example.test/a.pdf', truncated: false },
        { as: 'modelInput' },
        { markdownMaxBytes: 1_000_000, model: { contentTokens: 10_000, maxChunks: 4 } },
      );
    } finally {
      port.removeEventListener('message', listener);
    }
    expect(input.chunks).toEqual(['A short PDF for an Extract JSON request.']);
    expect(opened).toBe(1);
  });
});

describe('PDF to Markdown on hostile PDFs', () => {
  test('a page of more text runs than the cap keeps the cap', async () => {
    const runs = MAX_FRAGMENTS_PER_PAGE + 5_000;
    const pdf = await makePdf((doc) => {
      doc.font('Helvetica').fontSize(2);
      for (let i = 0; i < runs; i++) at(doc, 'x', 10 + (i % 250) * 2, 10 + Math.floor(i / 250) * 3);
    });
    const { markdown } = await pdfToMarkdown(pdf);
    expect((markdown.match(/x/g) ?? []).length).toBeLessThanOrEqual(MAX_FRAGMENTS_PER_PAGE);
  }, 120_000);

  test('a page of more ruling lines than the cap gets no table detection, and its text still', async () => {
    const markdown = await markdownOf((doc) => {
      doc.lineWidth(0.5);
      for (let i = 0; i <= MAX_RULES_PER_PAGE / 2 + 10; i++) {
        doc
          .moveTo(50 + (i % 100) * 5, 50)
          .lineTo(50 + (i % 100) * 5, 400)
          .stroke();
        doc
          .moveTo(50, 50 + (i % 100) * 3.5)
          .lineTo(550, 50 + (i % 100) * 3.5)
          .stroke();
      }
      doc.font('Helvetica').fontSize(11);
      at(doc, 'Text in a dense grid.', 52, 100);
    });
    expect(markdown).toBe('Text in a dense grid.');
  });

  test('a huge page converts like a small one', async () => {
    const markdown = await markdownOf(
      (doc) => {
        doc.font('Helvetica').fontSize(11);
        at(doc, 'At the top of a vast page.', 50, 5_000);
      },
      [14_400, 14_400],
    );
    expect(markdown).toBe('At the top of a vast page.');
  });

  test('an outline nested thousands deep costs its headings, not the document', async () => {
    const depth = 10_000;
    const pdf = outlinedPdf(
      [
        { text: 'Level 1', size: 16, y: 700 },
        { text: 'Text under the first level.', size: 11, y: 670 },
      ],
      Array.from({ length: depth }, (_, i) => ({ title: `Level ${i + 1}`, parent: i - 1 })),
    );
    const started = Date.now();
    const { markdown } = await pdfToMarkdown(pdf);
    expect(markdown).toBe('# Level 1\n\nText under the first level.');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  test('an outline of more entries than the cap gives headings from its first entries only', async () => {
    const entries = MAX_OUTLINE_ENTRIES * 10;
    const pdf = outlinedPdf(
      [
        { text: 'Early entry', size: 11, y: 700 },
        { text: 'Text after the early entry.', size: 11, y: 670 },
        { text: 'Late entry', size: 11, y: 640 },
        { text: 'Text after the late entry.', size: 11, y: 610 },
      ],
      Array.from({ length: entries }, (_, i) => ({
        title: i === 0 ? 'Early entry' : i === entries - 1 ? 'Late entry' : `Entry ${i}`,
        parent: -1,
      })),
    );
    const started = Date.now();
    const { markdown } = await pdfToMarkdown(pdf);
    expect(markdown).toBe('# Early entry\n\nText after the early entry.\n\nLate entry\n\nText after the late entry.');
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 60_000);

  test('an image of 100 million pixels is never decoded, during the conversion or after it', async () => {
    const pdf = imagePdf();
    const before = process.memoryUsage().arrayBuffers;
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().arrayBuffers - before)), 20);
    try {
      const { markdown } = await pdfToMarkdown(pdf);
      expect(markdown).toContain('A caption under a large image.');
      // pdf.js decodes a page's images in the background: the conversion is over before it is.
      await new Promise((resolve) => setTimeout(resolve, IMAGE_WATCH_MS));
    } finally {
      clearInterval(watch);
    }
    expect(peak).toBeLessThan(IMAGE_BYTES / 10);
  });

  test('a broken file is an error, not a hang', async () => {
    await expect(pdfToMarkdown(Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >>\ngarbage'))).rejects.toThrow();
  });
});
