import { measure, type Measures } from './main/measure';
import {
  dropCaptions,
  dropComments,
  dropExtras,
  dropFurniture,
  dropNeverContent,
  HEADING,
  isExtrasHeading,
  type Landmarks,
  type PageKind,
} from './main/prune';
import {
  DESCRIPTION_PRESENT_SHARE,
  DISCUSSION_DOMINANCE,
  DOMINANCE,
  SEMANTIC_SHARE,
  TEXT_WEIGHT,
  TITLED_ARTICLE_SHARE,
} from './main/patterns';

/**
 * The main content of a page, in named stages (each explains why it exists):
 *
 * 1. `dropNeverContent`: scripts, form controls and their labels, and frames go first, so no
 *    later stage counts their text. It notes the forms that held a field: a form with none is a
 *    wrapper, not furniture. A button inside a heading (an accordion's question) is unwrapped:
 *    its text is the heading.
 * 2. `measure`: one walk records every element's text, link text and prose weight (`content`),
 *    so the stages compare sizes without re-reading the tree (`textContent` on linkedom is slow).
 * 3. `dropFurniture`: navigation, page headers (not an article's own), footers, asides, forms and
 *    blocks named as share bars, related links, cookie banners, ads or metadata go, unless they
 * hold a large share of the page (then they are a site's odd wrapper, not furniture). A page's `main`
 * overrides size:
 *    what wraps it stays, and furniture beside it goes however large (a legal footer, a cookie
 *    dialog), save blocks only named like boilerplate. Landmarks are noted on the way.
 * 4. `dropComments`: reader comments go when the page's own text stands without them, or
 *    when the page marks its article body apart from them; on a forum they are the page and
 *    stay. On a product page (the caller says so from its Open Graph type or schema.org data)
 *    customers' reviews are comments too. On a page that declares itself a discussion
 *    (schema.org DiscussionForumPosting or QAPage, read with the metadata) a comment-named block
 *    holding most of the page is the thread itself and stays. Comments inside the page's `main`
 *    are weighed against the rest of that main, not against a sidebar beside it.
 * 5. `contentRoot`: the region the page marks as its content (`itemprop=articleBody`, the
 *    `article` that holds the headline, one dominant `article`, `main`), when it holds a real
 *    share of the prose; else the body. On a page that may be a shop's collection (its metadata
 *    says it is no article, product or discussion) an `article` without the page's product
 *    grid (many like siblings, most of them priced) is its category text, not the page.
 * 6. `descend`: from there, step into the child that holds nearly all the prose, while one does.
 *    An article ends at its text column; a forum thread or a listing, whose prose is spread
 *    over many like children, ends at the container that holds them all. On a discussion page
 *    it asks for more dominance and never steps into one of a run of like posts: a long post
 *    (a pasted log) or the answers beside a short question are not the thread. On a page that
 *    may be a shop's collection it never leaves the product grid behind for the category text
 *    beside it, however long, save a grid announced as extras ("More like this").
 * 7. `dropExtras`: inside the result, small link lists, link labels repeated on every item
 *    ("Book now"), marquees (a block whose children all repeat one text), copies of a title
 *    or price inside one product card, paragraphs that only link to another story of the
 *    site, and blocks under "Related", "Share" and similar headings go; a large link-dense
 *    block (a listing's grid) stays, and so does an entry that is all links among like
 *    siblings (a headline without a blurb in a listing).
 * 8. `dropCaptions`: image captions and photo credits go; the story reads without them.
 * 9. The page's h1 headline is put back on top when the content starts below it. Only an h1
 *    that survived pruning counts: a site name set as h1 in the page header is furniture.
 * 10. On a product page, the product's description from its schema.org data goes after the
 *    title when the content lacks it.
 */

/** Blocks that are content themselves: `descend` stops above them. */
const TEXT_BLOCKS = new Set([
  'P',
  'PRE',
  'UL',
  'OL',
  'DL',
  'TABLE',
  'BLOCKQUOTE',
  'FIGURE',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'LI',
  'TD',
]);

/** The first non-empty h1: the page's title as the page shows it. */
function titleHeading(body: Element): Element | undefined {
  for (const h1 of Array.from(body.getElementsByTagName('h1'))) if ((h1.textContent ?? '').trim()) return h1;
  return undefined;
}

/**
 * How much of the page's content an element holds: its prose, plus a little for all its text,
 * so a page with no prose (a listing of linked headlines, a product grid) still has a centre.
 */
function contentOf(measures: Measures, el: Element): number {
  const stats = measures.get(el);
  return stats ? stats.content + TEXT_WEIGHT * stats.chars : 0;
}

/** The largest of `candidates` by prose, with its share of the page's prose. */
function largest(measures: Measures, candidates: Element[]): { el?: Element; content: number; second: number } {
  let el: Element | undefined;
  let content = 0;
  let second = 0;
  for (const candidate of candidates) {
    const c = contentOf(measures, candidate);
    if (c > content) {
      second = content;
      content = c;
      el = candidate;
    } else if (c > second) second = c;
  }
  return { el, content, second };
}

/** Whether `el` holds at least half of `outer`'s product grids. */
function holdsGrid(el: Element, outer: Element, measures: Measures): boolean {
  return 2 * (measures.get(el)?.listed ?? 0) >= (measures.get(outer)?.listed ?? 0);
}

/**
 * Whether stepping from `node` into `child` leaves most of `node`'s product grid behind, on a page
 * that may be a shop's collection: there the grid is the content, however long the category
 * text beside it. A grid announced as extras ("More like this") is a product page's aside.
 */
function leavesGrid(node: Element, child: Element, measures: Measures): boolean {
  if ((measures.get(node)?.listed ?? 0) === 0 || holdsGrid(child, node, measures)) return false;
  let holder: Element | undefined;
  let most = 0;
  for (let el = node.firstElementChild; el; el = el.nextElementSibling) {
    const listed = measures.get(el)?.listed ?? 0;
    if (listed > most) {
      holder = el;
      most = listed;
    }
  }
  return !isExtrasHeading(headingOf(holder));
}

/** The text of the heading that announces `el`: the one just before it, or its first. */
function headingOf(el: Element | undefined): string {
  const before = el?.previousElementSibling;
  const announced = before && HEADING.test(before.tagName);
  const heading = announced ? before : el?.querySelector('h1, h2, h3, h4, h5, h6');
  return (heading?.textContent ?? '').trim();
}

/** Stage 5: the page's own marking of its content, trusted when it holds a real share of the prose. */
function contentRoot(
  body: Element,
  measures: Measures,
  landmarks: Landmarks,
  title: Element | undefined,
  grids: boolean,
): Element {
  const total = contentOf(measures, body) || 1;
  const attached = (els: Element[]) => els.filter((el) => el.isConnected);
  const articleBody = largest(measures, attached(landmarks.articleBodies));
  if (articleBody.el && articleBody.content >= SEMANTIC_SHARE * total) return articleBody.el;
  // On a shop's collection an article beside the product grid is its category text.
  const ownsGrid = (el: Element) => !grids || holdsGrid(el, body, measures);
  const articles = attached(landmarks.articles).filter(ownsGrid);
  // The article that holds the headline (and no other article) is the page's, though related
  // posts set as articles after it may hold more text than a short post.
  const titled = title
    ? articles.filter((el) => el.contains(title) && !articles.some((other) => other !== el && el.contains(other)))
    : [];
  if (titled.length === 1 && contentOf(measures, titled[0]!) >= TITLED_ARTICLE_SHARE * total) return titled[0]!;
  // One article among several is the page's; many of like size are posts or listed items.
  const article = largest(measures, articles);
  if (article.el && article.content >= 0.5 * total && article.content >= 3 * article.second) return article.el;
  const main = largest(measures, attached(landmarks.mains));
  if (main.el && main.content >= SEMANTIC_SHARE * total) return main.el;
  return body;
}

/** A sibling of `el` built like it (same tag and class) that holds prose: `el` is one of a run of posts or items. */
function hasLikeSibling(el: Element, measures: Measures): boolean {
  const cls = el.getAttribute('class');
  if (!cls) return false;
  for (const sibling of [el.previousElementSibling, el.nextElementSibling]) {
    if (
      sibling &&
      sibling.tagName === el.tagName &&
      sibling.getAttribute('class') === cls &&
      (measures.get(sibling)?.content ?? 0) > 0
    )
      return true;
  }
  return false;
}

/**
 * Stage 6: into the child holding nearly all the prose, while there is one. On a discussion
 * page one long post among its like siblings, or the answers beside a short question, are not
 * the page: the thread is.
 */
function descend(root: Element, measures: Measures, discussion: boolean, grids: boolean): Element {
  const dominance = discussion ? DISCUSSION_DOMINANCE : DOMINANCE;
  let node = root;
  for (;;) {
    const total = contentOf(measures, node);
    if (total === 0) return node;
    let best: Element | undefined;
    let bestContent = 0;
    for (let child = node.firstElementChild; child; child = child.nextElementSibling) {
      const c = contentOf(measures, child);
      if (c > bestContent) {
        best = child;
        bestContent = c;
      }
    }
    // A single text block (a paragraph, a list, a table) is content, not a container of it:
    // stepping into it would drop the rest of its container's text.
    if (!best || bestContent < dominance * total || TEXT_BLOCKS.has(best.tagName)) return node;
    if (discussion && hasLikeSibling(best, measures)) return node;
    if (grids && leavesGrid(node, best, measures)) return node;
    node = best;
  }
}

/**
 * The main content of a page as an element detached from the page, or undefined when the page
 * has no text at all (the caller then falls back to the body). The document is changed:
 * callers take metadata (and the page's signs) from it first.
 */
export function mainContent(doc: Document, page: PageKind = {}): Node | undefined {
  const body = doc.body;
  if (!body) return undefined;
  const formsWithFields = dropNeverContent(body);
  let measures = measure(body);
  if (contentOf(measures, body) === 0) return undefined;
  const landmarks = dropFurniture(body, measures, formsWithFields);
  measures = measure(body);
  dropComments(body, measures, page, landmarks.mains);
  measures = measure(body);
  const title = titleHeading(body);
  // A page that declares itself no article, product or discussion may be a shop's collection.
  const grids = !page.article && !page.product && !page.discussion;
  const start = contentRoot(body, measures, landmarks, title, grids);
  const root = descend(start, measures, page.discussion ?? false, grids);
  dropExtras(root, measures, page.url);
  dropCaptions(root);
  const result = doc.createElement('div');
  if (title && !root.contains(title)) result.appendChild(title.cloneNode(true));
  result.appendChild(root);
  if (page.productDescription) addDescription(result, root, title, page.productDescription);
  return result;
}

const WORD = /[\p{L}\p{N}]+/gu;

/** The share of `text`'s distinct words that `within` holds. */
function wordShare(text: string, within: string): number {
  const words = new Set(text.toLowerCase().match(WORD) ?? []);
  if (words.size === 0) return 1;
  const present = new Set(within.toLowerCase().match(WORD) ?? []);
  let found = 0;
  for (const word of words) if (present.has(word)) found++;
  return found / words.size;
}

/**
 * Stage 10: a product's description, from its schema.org data, when the content lacks it. Some
 * shops render it only from their scripts' data, and the region chosen may miss it: it is the
 * product's own text, so it goes after the title.
 */
function addDescription(result: Element, root: Element, title: Element | undefined, description: string): void {
  if (wordShare(description, result.textContent ?? '') >= DESCRIPTION_PRESENT_SHARE) return;
  const paragraph = result.ownerDocument.createElement('p');
  paragraph.textContent = description;
  if (title && root.contains(title)) title.after(paragraph);
  else root.before(paragraph);
}
