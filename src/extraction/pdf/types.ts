/** What the stages of the PDF path pass on, from pdf.js's text items to Markdown blocks. */

/** One positioned text run, in PDF user space (y up, baseline). */
export interface Fragment {
  str: string;
  x: number;
  y: number;
  width: number;
  size: number;
  bold: boolean;
  mono: boolean;
  /** pdf.js's end-of-line mark: the run closes a line as the producer laid it out. */
  eol: boolean;
}

/** A thin filled or stroked rectangle: a table's ruling line, a box's border, an underline. */
export interface Rule {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

export interface RawPage {
  width: number;
  height: number;
  fragments: Fragment[];
  rules: Rule[];
}

export interface Line {
  text: string;
  x0: number;
  x1: number;
  y: number;
  size: number;
  bold: boolean;
  mono: boolean;
  /** The width of one character of a monospaced line, to read its indentation. */
  charWidth: number;
  page: number;
}

export interface Table {
  kind: 'table';
  rows: string[][];
  page: number;
}

/** A page's content in reading order: its lines, and its tables where they stand. */
export type PageItem = Line | Table;

export type Block =
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'paragraph'; text: string }
  | { kind: 'item'; depth: number; marker: string; text: string }
  | { kind: 'code'; lines: string[] }
  | { kind: 'quote'; paragraphs: string[] }
  | Table;
