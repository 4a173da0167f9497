import { withFrontMatter } from '../../src/extraction/frontMatter';
import { pageToMarkdown } from '../../src/extraction/pageToMarkdown';

const TITLE = 'Tide tables for the northern harbour';
const PAGE = `<!doctype html><html><head><title>${TITLE}</title></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<main><article><h1>${TITLE}</h1>
<p>${'The harbour master publishes the tables each spring, with the heights of both daily tides. '.repeat(6)}</p>
<p>${'Boats with a deep keel leave within two hours of high water, as the bar at the mouth silts up. '.repeat(5)}</p>
</article></main></body></html>`;

/** The content each `metadata` choice answers with: the Markdown alone, or under its front matter. */
async function contents(): Promise<{ withMetadata: string; withFrontMatter: string }> {
  const { markdown, metadata } = await pageToMarkdown(
    { body: Buffer.from(PAGE), contentType: 'text/html', finalUrl: 'https://harbour.example/tides', truncated: false },
    'main',
  );
  return { withMetadata: markdown, withFrontMatter: withFrontMatter(markdown, metadata) };
}

describe("a page's headline that repeats its title", () => {
  it('stays in the content, whatever metadata is', async () => {
    const { withMetadata, withFrontMatter: framed } = await contents();
    expect(withMetadata).toMatch(new RegExp(`^# ${TITLE}$`, 'm'));
    expect(framed.endsWith(withMetadata)).toBe(true);
    expect(framed).toMatch(new RegExp(`^# ${TITLE}$`, 'm'));
  });
});
