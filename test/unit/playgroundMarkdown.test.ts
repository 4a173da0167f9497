import { markdownToHtml } from '../../src/playground/markdown';

/**
 * The playground renders Markdown that hostile pages and models wrote (src/playground/markdown.ts),
 * on the browser tab's main thread: its cost must grow with the text's size, not faster, and no
 * nesting may overflow the stack. 200 kB is a fifth of an extraction's Markdown at most.
 */

const SIZE = 200_000;
const HOSTILE: Record<string, string> = {
  'emphasis openers': '_a'.repeat(SIZE / 2),
  'strong openers': '*a'.repeat(SIZE / 2),
  'link openers': '['.repeat(SIZE),
  'image openers': '![a]('.repeat(SIZE / 5),
  'nested quotes': '>'.repeat(SIZE),
  'nested lists': Array.from({ length: 400 }, (_, depth) => `${'  '.repeat(depth)}- a`).join('\n'),
};

it.each(Object.entries(HOSTILE))('renders %s in bounded time', (_, text) => {
  const started = performance.now();
  expect(markdownToHtml(text).length).toBeGreaterThan(0);
  expect(performance.now() - started).toBeLessThan(5_000);
});

it('renders links, emphasis and code, and keeps raw HTML as text', () => {
  const html = markdownToHtml('# T\n\n*a* [b](https://example.org/b) `c`\n\n<img src=x onerror=alert(1)>');
  expect(html).toContain('<h1>T</h1>');
  expect(html).toContain('<em>a</em> <a href="https://example.org/b">b</a> <code>c</code>');
  expect(html).not.toContain('<img');
});
