import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';

/**
 * The main article of a page as a detached DOM, or undefined when the page has no clear
 * article. The document is consumed: callers take metadata from it first.
 */
export function mainContent(doc: Document): Node | undefined {
  const article = new Readability(doc, { keepClasses: true }).parse();
  if (!article?.content) return undefined;
  return parseHTML(`<!doctype html><html><body>${article.content}</body></html>`).document.body;
}
