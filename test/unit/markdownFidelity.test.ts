import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pageToMarkdown } from '../../src/extraction/pageToMarkdown';

/**
 * Golden tests: each fixture page in `fixtures/markdown/` goes through the production conversion
 * (`pageToMarkdown`: decode, parse, clean, main content, Markdown) and must give its `.md` file
 * exactly (`.full.md` for `content: full`).
 */
const FIXTURES = path.join(__dirname, '..', 'fixtures', 'markdown');
const PAGE_URL = 'https://news.example/story/harbour';

const CASES: [fixture: string, scope: 'main' | 'full', construct: string][] = [
  [
    'code',
    'main',
    'fenced code blocks with their language, highlighted code kept exactly, fences longer than the code',
  ],
  [
    'figure',
    'main',
    'lazy images (data-src, data-srcset, picture) resolved to real absolute URLs; no image captions in main',
  ],
  ['figure', 'full', 'figure captions in italics under their image'],
  ['lists', 'main', 'nested and numbered lists, blockquotes, emphasis, strikethrough and inline code'],
  ['table', 'main', 'GFM tables with a header row, escaped pipes, column spans and row spans'],
  ['deflist', 'main', 'definition lists and footnotes'],
  ['links', 'main', 'links absolute against <base>, script links as text, hidden elements dropped'],
  ['cdata', 'main', 'a stray <![CDATA[ read as browsers read it, not as swallowing the page'],
  [
    'streamed',
    'main',
    'content React streams late in hidden segments put where its script puts it, the loading fallback gone',
  ],
  [
    'misplaced',
    'main',
    'content written inside <head>, before <body> or after </html> read into the body, as browsers do',
  ],
  ['page', 'main', 'no navigation, cookie banner, share widget, footer, script or style in main'],
  ['page', 'full', 'navigation, footer and links kept in full'],
];

describe('Markdown fidelity (golden files)', () => {
  it.each(CASES)('%s (%s): %s', async (fixture, scope) => {
    const body = readFileSync(path.join(FIXTURES, `${fixture}.html`));
    const page = { body, contentType: 'text/html; charset=utf-8', finalUrl: PAGE_URL, truncated: false };
    const { markdown } = await pageToMarkdown(page, scope);
    const expected = readFileSync(path.join(FIXTURES, `${fixture}${scope === 'full' ? '.full' : ''}.md`), 'utf8');
    expect(markdown).toBe(expected.replace(/\n$/, ''));
  });
});
