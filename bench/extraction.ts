import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { pageToMarkdown } from '../src/extraction/pageToMarkdown';
import { toMarkdown } from '../src/extraction/markdown';
import { fmt } from './common';

/**
 * `npm run bench:extraction`: main-content quality on the two benchmarks in ../shared, scored
 * the way each benchmark's own evaluate.py scores, for our extractor (the production path:
 * decode, parse, clean, main content, Markdown) and for Readability + turndown on linkedom.
 */

const SHARED = path.resolve(__dirname, '..', '..', '..', 'shared', 'benchmarks');

export interface Page {
  id: string;
  url: string;
  /**
   * The page's HTML, still gzipped: unpacked only when it is read, so the benchmark does not hold
   * every page's HTML at once (a heap of that size slowed garbage collection, and the timings).
   */
  gzipped: Buffer;
  truth: string;
  type: string;
}

export function loadArticleExtraction(): Page[] {
  const dir = path.join(SHARED, 'article-extraction');
  const truth = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')) as Record<
    string,
    { articleBody?: string; url?: string }
  >;
  return Object.entries(truth).map(([id, entry]) => ({
    id,
    url: entry.url ?? 'https://example.com/',
    gzipped: readFileSync(path.join(dir, 'html', `${id}.html.gz`)),
    truth: entry.articleBody ?? '',
    type: 'article',
  }));
}

export function loadWcxb(): Page[] {
  const dir = path.join(SHARED, 'wcxb-dev');
  return readdirSync(path.join(dir, 'ground-truth'))
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const id = name.replace(/\.json$/, '');
      const data = JSON.parse(readFileSync(path.join(dir, 'ground-truth', name), 'utf8')) as {
        url?: string;
        _internal?: { page_type?: { primary?: string } | string };
        ground_truth?: { main_content?: string };
      };
      const pageType = data._internal?.page_type;
      const primary = (typeof pageType === 'string' ? pageType : pageType?.primary) ?? 'article';
      return {
        id,
        url: data.url ?? 'https://example.com/',
        gzipped: readFileSync(path.join(dir, 'html', `${id}.html.gz`)),
        truth: data.ground_truth?.main_content ?? '',
        type: primary === 'category' ? 'collection' : primary,
      };
    });
}

/** Markdown as the plain text a scorer should see: no link targets, no images, no markup words. */
export function markdownToText(markdown: string): string {
  return markdown
    .replace(/!\[[^\]]*\]\([^)]*\)/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(/^```.*$/gm, ' ')
    .replace(/^\s{0,3}(#{1,6}|[-*+]|\d+\.|>)\s+/gm, '');
}

/** Python's `\w+` with re.UNICODE: letters, digits and the underscore. */
const WORD = /[\p{L}\p{N}_]+/gu;
const tokens = (text: string): string[] => text.match(WORD) ?? [];

/** article-extraction's scorer: 4-gram shingles, tp/fp/fn normalised per page. */
function shingleCounts(text: string): Map<string, number> {
  const words = tokens(text);
  const counts = new Map<string, number>();
  for (let i = 0; i < Math.max(1, words.length - 3); i++) {
    const shingle = words.slice(i, i + 4);
    if (shingle.length === 0) continue;
    const key = shingle.join('\u0001');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

function shingleScore(truth: string, predicted: string): [number, number, number] {
  const t = shingleCounts(truth);
  const p = shingleCounts(predicted);
  let tp = 0;
  let fp = 0;
  let fn = 0;
  for (const key of new Set([...t.keys(), ...p.keys()])) {
    const tc = t.get(key) ?? 0;
    const pc = p.get(key) ?? 0;
    tp += Math.min(tc, pc);
    fp += Math.max(0, pc - tc);
    fn += Math.max(0, tc - pc);
  }
  const sum = tp + fp + fn;
  return sum > 0 ? [tp / sum, fp / sum, fn / sum] : [0, 0, 0];
}

function articleMetrics(scores: [number, number, number][]): { f1: number; p: number; r: number } {
  const precision = (tp: number, fp: number, fn: number) =>
    fp === 0 && fn === 0 ? 1 : tp === 0 && fp === 0 ? 0 : tp / (tp + fp);
  const recall = (tp: number, fp: number, fn: number) =>
    fp === 0 && fn === 0 ? 1 : tp === 0 && fn === 0 ? 0 : tp / (tp + fn);
  const ps = scores.filter(([tp, fp]) => tp + fp > 0).map(([tp, fp, fn]) => precision(tp, fp, fn));
  const rs = scores.filter(([tp, , fn]) => tp + fn > 0).map(([tp, fp, fn]) => recall(tp, fp, fn));
  const p = ps.reduce((a, b) => a + b, 0) / ps.length;
  const r = rs.reduce((a, b) => a + b, 0) / rs.length;
  return { f1: (2 * p * r) / (p + r), p, r };
}

/** WCXB's scorer: lower-cased word bags, per-page P/R/F1. */
function wordScore(predicted: string, reference: string): [number, number, number] {
  const pred = tokens(predicted.toLowerCase());
  const ref = tokens(reference.toLowerCase());
  if (ref.length === 0) return pred.length === 0 ? [1, 1, 1] : [0, 0, 0];
  if (pred.length === 0) return [0, 0, 0];
  const refCounts = new Map<string, number>();
  for (const word of ref) refCounts.set(word, (refCounts.get(word) ?? 0) + 1);
  let overlap = 0;
  for (const word of pred) {
    const left = refCounts.get(word) ?? 0;
    if (left > 0) {
      overlap++;
      refCounts.set(word, left - 1);
    }
  }
  const p = overlap / pred.length;
  const r = overlap / ref.length;
  return [p, r, p + r > 0 ? (2 * p * r) / (p + r) : 0];
}

type Extractor = (html: Buffer, page: Page) => Promise<string>;

export const htmlOf = (page: Page): Buffer => gunzipSync(page.gzipped);

export const ours: Extractor = async (html, page) =>
  markdownToText(
    (await pageToMarkdown({ body: html, contentType: 'text/html', finalUrl: page.url, truncated: false }, 'main'))
      .markdown,
  );

const readabilityBaseline: Extractor = async (html) => {
  const { document } = parseHTML(html.toString('utf8'));
  const article = new Readability(document).parse();
  if (!article?.content) return '';
  return markdownToText(toMarkdown(parseHTML(`<html><body>${article.content}</body></html>`).document.body));
};

/** Runs `extractor` over `pages`, timing the extraction alone; texts are kept for BENCH_DUMP. */
async function extractAll(extractor: Extractor, pages: Page[]): Promise<{ texts: string[]; seconds: number }> {
  const texts: string[] = [];
  let seconds = 0;
  for (const page of pages) {
    const html = htmlOf(page);
    const started = performance.now();
    texts.push(await extractor(html, page).catch(() => ''));
    seconds += (performance.now() - started) / 1000;
  }
  return { texts, seconds };
}

async function run(name: string, extractor: Extractor, articles: Page[], wcxb: Page[]): Promise<void> {
  const a1 = await extractAll(extractor, articles);
  const w1 = await extractAll(extractor, wcxb);
  if (process.env.BENCH_DUMP) {
    // Predictions in each benchmark's own results format, to score them with its evaluate.py.
    const tag = name.startsWith('ours') ? 'ours' : 'baseline';
    writeFileSync(
      `${process.env.BENCH_DUMP}-${tag}-article.json`,
      JSON.stringify(Object.fromEntries(articles.map((p, i) => [p.id, { articleBody: a1.texts[i] }]))),
    );
    writeFileSync(
      `${process.env.BENCH_DUMP}-${tag}-wcxb.json`,
      JSON.stringify(Object.fromEntries(wcxb.map((p, i) => [p.id, w1.texts[i]]))),
    );
  }
  const articleScores = articles.map((page, i) => shingleScore(page.truth, a1.texts[i]!));
  const byType = new Map<string, [number, number, number][]>();
  const wcxbScores = wcxb.map((page, i) => wordScore(w1.texts[i]!, page.truth));
  wcxb.forEach((page, i) => byType.set(page.type, [...(byType.get(page.type) ?? []), wcxbScores[i]!]));
  if (process.env.BENCH_PAGES) {
    // One line per page (set, id, type, P, R, F1, words predicted, words in the truth): what to read
    // when a figure moves.
    const line = (set: string, page: Page, [p, r, f]: [number, number, number], text: string) =>
      [
        set,
        page.id,
        page.type,
        p.toFixed(3),
        r.toFixed(3),
        f.toFixed(3),
        tokens(text).length,
        tokens(page.truth).length,
      ].join('\t');
    const shingleF = ([tp, fp, fn]: [number, number, number]): [number, number, number] => {
      const p = tp + fp > 0 ? tp / (tp + fp) : 0;
      const r = tp + fn > 0 ? tp / (tp + fn) : 0;
      return [p, r, p + r > 0 ? (2 * p * r) / (p + r) : 0];
    };
    const rows = [
      ...articles.map((page, i) => line('article-extraction', page, shingleF(articleScores[i]!), a1.texts[i]!)),
      ...wcxb.map((page, i) => line('wcxb', page, wcxbScores[i]!, w1.texts[i]!)),
    ];
    const tag = name.startsWith('ours') ? 'ours' : 'baseline';
    writeFileSync(`${process.env.BENCH_PAGES}-${tag}.tsv`, `${rows.join('\n')}\n`);
  }
  const a = articleMetrics(articleScores);
  const all = [...byType.values()].flat();
  const mean = (scores: [number, number, number][], i: number) =>
    scores.reduce((sum, s) => sum + s[i]!, 0) / scores.length;
  console.log(`\n${name}`);
  console.log(
    `  article-extraction (${articles.length}): F1 ${a.f1.toFixed(3)}  P ${a.p.toFixed(3)}  R ${a.r.toFixed(3)}  ${fmt(articles.length / a1.seconds)} pages/s`,
  );
  if (wcxb.length === 0) return;
  console.log(
    `  wcxb-dev (${wcxb.length}): F1 ${mean(all, 2).toFixed(3)}  P ${mean(all, 0).toFixed(3)}  R ${mean(all, 1).toFixed(3)}  ${fmt(wcxb.length / w1.seconds)} pages/s`,
  );
  const types = [...byType.entries()].sort(([x], [y]) => x.localeCompare(y));
  console.log(
    `  per type F1: ${types.map(([type, scores]) => `${type} ${mean(scores, 2).toFixed(3)} (${scores.length})`).join(', ')}`,
  );
}

async function main(): Promise<void> {
  const articles = loadArticleExtraction();
  // BENCH_TYPES=product,forum scores only those WCXB page types: a quicker loop while working on them.
  const types = process.env.BENCH_TYPES?.split(',');
  const all = loadWcxb().filter((page) => !types || types.includes(page.type));
  const wcxb = process.env.BENCH_WCXB_LIMIT ? all.slice(0, Number(process.env.BENCH_WCXB_LIMIT)) : all;
  await run('ours (content: main)', ours, articles, wcxb);
  if (!process.env.BENCH_SKIP_BASELINE)
    await run('baseline: @mozilla/readability + turndown on linkedom', readabilityBaseline, articles, wcxb);
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
