import { pageToMarkdown } from '../src/extraction/pageToMarkdown';
import { htmlOf, loadArticleExtraction, loadWcxb } from './extraction';

/**
 * `node dist/bench/showPage.js <article|wcxb> <id>`: one benchmark page as our extractor reads it
 * (`content: main`), then its ground truth, to see why a page scores as it does.
 */
async function main(): Promise<void> {
  const [set, id] = process.argv.slice(2);
  const pages = set === 'article' ? loadArticleExtraction() : loadWcxb();
  const page = pages.find((p) => p.id === id);
  if (!page) throw new Error(`no page ${id} in ${set}; usage: showPage <article|wcxb> <id>`);
  const { markdown } = await pageToMarkdown(
    { body: htmlOf(page), contentType: 'text/html', finalUrl: page.url, truncated: false },
    'main',
  );
  console.log(`=== ours (${page.type}, ${page.url})\n${markdown}\n\n=== truth\n${page.truth}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
