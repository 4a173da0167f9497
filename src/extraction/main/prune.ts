import type { PageSigns } from '../metadata';
import { namesOf } from '../elementNames';
import { type Measures, type TextStats, EMPTY_STATS, linkDensity } from './measure';
import {
  ARTICLE_BODY_NAMES,
  BOILERPLATE_NAMES,
  BYLINE_WORDS,
  CAPTION_CAMEL_TOKEN,
  CAPTION_TOKEN,
  CARD_MAX_PRICES,
  COMMENT_NAMES,
  CONSENT_NAMES,
  CONTENT_NAMES,
  EXTRAS_HEADINGS,
  EXTRAS_HEADINGS_OTHER_LANGUAGES,
  EXTRAS_TAIL_SHARE,
  FURNITURE_ROLES,
  FURNITURE_TAGS,
  FURNITURE_WORDS,
  HIDDEN_CLASSES,
  HIDDEN_WIDE_CLASSES,
  ITEM_BODY_SHARE,
  LABEL_LINK_DENSITY,
  LABEL_MAX_CHARS,
  LIKE_SIBLING_REACH,
  LINK_LIST_SHARE,
  MAX_FURNITURE_SHARE,
  LIST_ITEM_TAGS,
  MARQUEE_COPIES,
  MARQUEE_MAX_CHARS,
  MAX_LINK_DENSITY,
  MIN_LIKE_ITEMS,
  MODAL_ROLES,
  NEVER_CONTENT_TAGS,
  OVERLAY_NAMES,
  OWN_CONTENT_MIN,
  OWN_CONTENT_SHARE,
  OWN_PRODUCT_MIN,
  PROMO_LINK_DENSITY,
  QUOTATION_SHARE,
  RECOMMENDATION_HEADINGS,
  REPEAT_MAX_CHARS,
  REVIEW_NAMES,
  SHOWN_WIDE_CLASSES,
  SLOT_WORDS,
  THREAD_SHARE,
  TEXT_COLUMN_SHARE,
  TYPE_STYLE_TOKEN,
} from './patterns';

export const HEADING = /^H[1-6]$/;

/** Elements found on the way that mark the content themselves, for the next stage. */
export interface Landmarks {
  articleBodies: Element[];
  articles: Element[];
  mains: Element[];
}

/** A control a reader fills in: a form holding one is a form, not a wrapper that posts back. */
function isField(el: Element): boolean {
  if (el.tagName === 'INPUT') return el.getAttribute('type')?.toLowerCase() !== 'hidden';
  return el.tagName === 'TEXTAREA' || el.tagName === 'SELECT';
}

/**
 * Removes what can never be read as content: scripts, form controls and their labels, frames.
 * Returns the forms that held a field, noted before the controls go: a `<form>` with none (old
 * Reddit wraps every comment's text in one) is furniture by name only, not by tag. A button
 * inside a heading is the heading's text (an accordion's question that opens its answer): it is
 * unwrapped.
 */
export function dropNeverContent(root: Element): Set<Element> {
  const withFields = new Set<Element>();
  const walk = (el: Element, form: Element | undefined, inHeading: boolean): void => {
    for (let child = el.firstElementChild; child;) {
      const next = child.nextElementSibling;
      if (form && isField(child)) withFields.add(form);
      if (inHeading && child.tagName === 'BUTTON') {
        const first = child.firstElementChild;
        child.replaceWith(...Array.from(child.childNodes));
        // Its content now stands where it stood: walk it from there.
        child = first ?? next;
        continue;
      }
      if (NEVER_CONTENT_TAGS.has(child.tagName)) child.remove();
      else {
        const heading = inHeading || HEADING.test(child.tagName);
        walk(child, child.tagName === 'FORM' ? child : form, heading);
      }
      child = next;
    }
  };
  walk(root, undefined, false);
  return withFields;
}

/** Hidden by a style-sheet class, as a desktop browser shows the page. */
function hiddenByClass(el: Element): boolean {
  const tokens = (el.getAttribute('class') ?? '').split(/\s+/);
  if (tokens.some((token) => HIDDEN_WIDE_CLASSES.test(token))) return true;
  return tokens.some((token) => HIDDEN_CLASSES.test(token)) && !tokens.some((token) => SHOWN_WIDE_CLASSES.test(token));
}

type FurnitureKind = 'certain' | 'named' | undefined;

/**
 * Whether `el` is page furniture, and how sure that is: `certain` for furniture by tag, role or
 * hiding, and for overlays (cookie dialogs, pop-ups) by name; `named` for the rest of the
 * boilerplate names, which a site may also give to a region of its content ("more-ads" around a
 * listing's second half), save a part that every item of a list repeats.
 */
function furnitureKind(
  el: Element,
  inArticle: boolean,
  measures: Measures,
  formsWithFields: Set<Element>,
): FurnitureKind {
  // An article's own <header> holds its headline and standfirst: on a listing, each item's title.
  const ownHeader = inArticle && el.tagName === 'HEADER';
  const fieldless = el.tagName === 'FORM' && !formsWithFields.has(el);
  if (FURNITURE_TAGS.has(el.tagName) && !ownHeader && !fieldless) return 'certain';
  const role = el.getAttribute('role');
  if (role && FURNITURE_ROLES.test(role)) return 'certain';
  if (el.getAttribute('aria-modal') === 'true') return 'certain';
  if (hiddenByClass(el)) return 'certain';
  // A table is content by its tag; its class words describe how it shows ("sticky-header").
  if (el.tagName === 'TABLE') return undefined;
  const names = namesOf(el);
  if (!names || CONTENT_NAMES.test(names)) return undefined;
  if (OVERLAY_NAMES.test(names)) return 'certain';
  if (BOILERPLATE_NAMES.test(names)) return 'named';
  // An article is content by its tag: its class words describe it (`author-jane`, `category-news`).
  if (el.tagName === 'ARTICLE') return undefined;
  if (FURNITURE_WORDS.test(names)) return 'named';
  const described = SLOT_WORDS.test(names) || BYLINE_WORDS.test(names);
  return described && !isItemPart(el, names, measures) ? 'named' : undefined;
}

/**
 * A part of one of a run of like items that the item beside it repeats (each job's
 * `listing__header`, each grid's `read-more-ad` wrapper): the items' own structure, not furniture
 * set among them; an ad placed between the items is no part of one. A part named as a byline
 * (`meta`, `date`, `author`) is the item's metadata unless it holds most of the item's text (each
 * search result's `meta` that holds its title, authors and subjects).
 */
function isItemPart(el: Element, names: string, measures: Measures): boolean {
  const cls = el.getAttribute('class');
  const item = cls ? enclosingItem(el) : undefined;
  if (!item || !cls) return false;
  const copied = (other?: Element) => other !== undefined && holdsCopy(other, el.tagName, cls);
  if (!copied(item.before) && !copied(item.after)) return false;
  if (!BYLINE_WORDS.test(names)) return true;
  const itemChars = measures.get(item.el)?.chars ?? 0;
  return (measures.get(el)?.chars ?? 0) >= ITEM_BODY_SHARE * itemChars;
}

/** One of a run of like blocks, with the nearest of its like siblings on either side. */
interface Item {
  el: Element;
  before?: Element;
  after?: Element;
}

/** The nearest block around `el` that has a sibling of its tag and class: one of a run of items. */
function enclosingItem(el: Element): Item | undefined {
  for (let item = el.parentElement; item; item = item.parentElement) {
    const key = itemKey(item);
    if (key === undefined) continue;
    const before = likeSibling(item, key, (sibling) => sibling.previousElementSibling);
    const after = likeSibling(item, key, (sibling) => sibling.nextElementSibling);
    if (before || after) return { el: item, before, after };
  }
  return undefined;
}

type Step = (el: Element) => Element | null;

/** The nearest sibling of `item` keyed `key`, past a few others (ads set between the items). */
function likeSibling(item: Element, key: string, step: Step): Element | undefined {
  let sibling = step(item);
  for (let i = 0; sibling && i < LIKE_SIBLING_REACH; i++, sibling = step(sibling)) {
    if (itemKey(sibling) === key) return sibling;
  }
  return undefined;
}

/** Whether `item` holds a block of this tag and class. */
function holdsCopy(item: Element, tagName: string, cls: string): boolean {
  const copies = item.getElementsByClassName(cls.trim().split(/\s+/)[0]!);
  for (let i = 0; i < copies.length; i++) {
    if (copies[i]!.tagName === tagName && copies[i]!.getAttribute('class') === cls) return true;
  }
  return false;
}

/**
 * A dialog over the page (a privacy policy, a size guide, a cart) is never the page, however
 * long: the share that keeps a site's odd furniture-named wrapper does not apply to it.
 */
function isModal(el: Element): boolean {
  const role = el.getAttribute('role');
  return (role !== null && MODAL_ROLES.test(role)) || el.getAttribute('aria-modal') === 'true';
}

/**
 * A block that is mostly a quotation: an embedded post ("social-media-embed" around a tweet's
 * blockquote) is quoted content, whatever the wrapper is named.
 */
function isQuotation(el: Element, measures: Measures): boolean {
  const chars = measures.get(el)?.chars ?? 0;
  if (chars === 0 || FURNITURE_TAGS.has(el.tagName)) return false;
  const quote = el.tagName === 'BLOCKQUOTE' ? el : el.querySelector('blockquote');
  return quote !== null && (measures.get(quote)?.chars ?? 0) >= QUOTATION_SHARE * chars;
}

/**
 * Drops page furniture (navigation, headers, footers, asides, forms, and blocks named as
 * sharing, related links, cookie notices, ads, metadata and the like) while noting the
 * landmarks that mark the content. A furniture block holding a large share of the page's
 * content is kept: some sites wrap the whole page in a `<form>` or a `sidebar-layout` div. A
 * `<footer>` is not, unless it wraps the page's `<main>`: a shop's testimonials, legal text or
 * link directory set in its footer outweighed a short product, and on a page its scripts render
 * the footer was all there was to keep.
 */
export function dropFurniture(root: Element, measures: Measures, formsWithFields: Set<Element>): Landmarks {
  const total = measures.get(root)?.content || 1;
  const landmarks: Landmarks = { articleBodies: [], articles: [], mains: [] };
  // A page that marks its content with <main> says where it is: a block around that main is a
  // wrapper whatever it is named (`content-sidebar-wrap`), and certain furniture beside it (a
  // footer of legal text, a cookie dialog) is furniture however large.
  const mains = Array.from(root.querySelectorAll('main, [role="main"]')).filter(
    (main) => (measures.get(main)?.chars ?? 0) > 0,
  );
  const kept = (el: Element, kind: 'certain' | 'named', stats: TextStats): boolean => {
    if (mains.some((main) => el.contains(main))) return true;
    if (isModal(el) || el.tagName === 'FOOTER') return false;
    if (stats.content / total <= MAX_FURNITURE_SHARE) return false;
    return kind === 'named' || mains.length === 0 || mains.some((main) => main.contains(el));
  };
  const walk = (el: Element, inArticle: boolean): void => {
    for (let child = el.firstElementChild; child;) {
      const next = child.nextElementSibling;
      const stats = measures.get(child) ?? EMPTY_STATS;
      const kind = furnitureKind(child, inArticle, measures, formsWithFields);
      // A consent block that wraps the page's own landmarks is a page-state class on a wrapper.
      if (CONSENT_NAMES.test(namesOf(child)) && !child.querySelector('main, article, [role="main"]')) {
        child.remove();
      } else if (
        kind &&
        !kept(child, kind, stats) &&
        !child.querySelector('[itemprop="articleBody"]') &&
        !isQuotation(child, measures)
      ) {
        child.remove();
      } else {
        if (child.tagName === 'ARTICLE') landmarks.articles.push(child);
        else if (child.tagName === 'MAIN' || child.getAttribute('role') === 'main') landmarks.mains.push(child);
        if (child.getAttribute('itemprop') === 'articleBody') landmarks.articleBodies.push(child);
        walk(child, inArticle || child.tagName === 'ARTICLE');
      }
      child = next;
    }
  };
  walk(root, false);
  return landmarks;
}

/** What the caller knows of the page: its signs, read with its metadata before it is cleaned, and its address. */
export interface PageKind extends Partial<PageSigns> {
  /** Links to the site's other pages are told from links elsewhere by it. */
  url?: string;
}

/**
 * Drops reader comments (and customers' reviews on a product page), unless they are most of the
 * page: on a forum or a Q&A page the replies are the content, on an article they are not. A
 * product's few lines of description stand without its reviews, however many there are. An
 * article that marks its body (`itemprop=articleBody`, `entry-content`) outside the comments
 * loses them however long the discussion is: a short post that opens a blog's open thread is
 * still the page's own text.
 */
export function dropComments(root: Element, measures: Measures, page: PageKind, mains: Element[]): void {
  const found: Element[] = [];
  let markedBody = false;
  const walk = (el: Element): void => {
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      const names = namesOf(child);
      if (
        names &&
        (COMMENT_NAMES.test(names) || (page.product && REVIEW_NAMES.test(names))) &&
        !CONTENT_NAMES.test(names)
      ) {
        found.push(child);
        continue;
      }
      if (
        !markedBody &&
        (child.getAttribute('itemprop') === 'articleBody' || (names && ARTICLE_BODY_NAMES.test(names)))
      ) {
        // Only a body with no comments inside counts: the comments must stand outside it.
        const before = found.length;
        walk(child);
        if (found.length === before && (measures.get(child)?.content ?? 0) > 0) markedBody = true;
        continue;
      }
      walk(child);
    }
  };
  walk(root);
  // The page's own text is weighed inside the <main> that holds the comments: a sidebar beside
  // it (a forum's rules and links) is not a post the replies could be comments on.
  const holds = (main: Element) => main.isConnected && found.every((el) => main.contains(el));
  const scope = (found.length > 0 && mains.find(holds)) || root;
  const total = measures.get(scope)?.content || 1;
  // On a discussion page a comment-named block holding most of the page is the thread itself,
  // and its opening post beside it may be named "discussion": all of it stays.
  if (page.discussion && found.some((el) => (measures.get(el)?.content ?? 0) >= THREAD_SHARE * total)) return;
  const commentContent = found.reduce((sum, el) => sum + (measures.get(el)?.content ?? 0), 0);
  const own = total - commentContent;
  const ownMin = page.product ? OWN_PRODUCT_MIN : OWN_CONTENT_MIN;
  const stands = markedBody || own / total >= OWN_CONTENT_SHARE || own >= ownMin;
  if (commentContent > 0 && stands) for (const el of found) el.remove();
}

/** The site of a URL: its host without subdomains (`video.foxnews.com` and `www.foxnews.com` are one site). */
function siteOf(url: string): string {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return '';
  }
  const labels = host.split('.');
  // A country's second level (`co.uk`, `com.br`) belongs to the suffix, not to the site.
  const suffix = labels.length >= 3 && labels.at(-1)!.length === 2 && labels.at(-2)!.length <= 3 ? 3 : 2;
  return labels.slice(-suffix).join('.');
}

/**
 * A paragraph that is one link to another page of the same site ("READ MORE: ...", a related
 * headline set as a paragraph), inside the text column. Links to other sites are kept: in a
 * story they are sources, in a round-up the items themselves.
 */
function isPromo(el: Element, measures: Measures, site: string, columnContent: number): boolean {
  if (el.tagName !== 'P' || !site) return false;
  const stats = measures.get(el) ?? EMPTY_STATS;
  if (stats.links !== 1 || linkDensity(stats) <= PROMO_LINK_DENSITY) return false;
  const parent = el.parentElement;
  if (!parent || (measures.get(parent)?.content ?? 0) < columnContent) return false;
  return siteOf(el.querySelector('a[href]')?.getAttribute('href') ?? '') === site;
}

/**
 * Drops the link labels repeated across the content ("Book now", "Map", "Read the review" on
 * every item): a paragraph or block that is one short link, no heading, whose text another such
 * block repeats. An item's own title is a heading or appears once. Inside a product card the
 * copies of its title or price go too. Marquees go on the way.
 */
function dropRepeatedLabels(root: Element, measures: Measures): void {
  const labels = new Map<string, Element[]>();
  const marquees: Element[] = [];
  const walk = (el: Element): void => {
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      const stats = measures.get(child) ?? EMPTY_STATS;
      if (isMarquee(child, measures)) {
        marquees.push(child);
        continue;
      }
      const isLabel =
        (child.tagName === 'P' || child.tagName === 'DIV') &&
        stats.links === 1 &&
        stats.chars <= LABEL_MAX_CHARS &&
        linkDensity(stats) >= LABEL_LINK_DENSITY &&
        !child.querySelector('h1, h2, h3, h4, h5, h6');
      if (!isLabel) {
        if (isPricedItem(child, measures)) dropRepeatsInItem(child, measures);
        walk(child);
        continue;
      }
      const text = (child.textContent ?? '').trim().toLowerCase().replace(/\s+/g, ' ');
      labels.set(text, [...(labels.get(text) ?? []), child]);
    }
  };
  walk(root);
  for (const copies of labels.values()) if (copies.length > 1) for (const el of copies) el.remove();
  for (const el of marquees) el.remove();
}

/**
 * A block whose children all show one short text (four times or more): a marquee or a ticker
 * repeats its item ("Book now * Book now * ...") so that its loop looks endless. Decoration.
 */
function isMarquee(el: Element, measures: Measures): boolean {
  if (el.childElementCount < MARQUEE_COPIES) return false;
  let text: string | undefined;
  let copiedChars = 0;
  let copies = 0;
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    const chars = measures.get(child)?.chars ?? 0;
    if (chars === 0) continue;
    if (chars > MARQUEE_MAX_CHARS) return false;
    const own = (child.textContent ?? '').trim();
    if (text !== undefined && own !== text) return false;
    text = own;
    copiedChars += chars;
    copies++;
  }
  // Text between the children (a sentence around like words) is no marquee.
  return copies >= MARQUEE_COPIES && (measures.get(el)?.chars ?? 0) === copiedChars;
}

/** A heading that announces extras: related stories, comments, a shop's recommendations. */
export function isExtrasHeading(text: string): boolean {
  if (text.length >= 60) return false;
  const kinds = [EXTRAS_HEADINGS, EXTRAS_HEADINGS_OTHER_LANGUAGES, RECOMMENDATION_HEADINGS];
  return kinds.some((words) => words.test(text));
}

/**
 * Inside the chosen content: drops link lists (menus, tag lists, "more stories") that are a
 * small part of it, link labels repeated on every item, paragraphs that only point to another
 * story of the site, and blocks announced by headings such as "Related" or "Share this". A large
 * link-dense block is kept whole: on a listing page the grid of linked items is the content.
 */
export function dropExtras(root: Element, measures: Measures, pageUrl?: string): void {
  dropRepeatedLabels(root, measures);
  const total = measures.get(root)?.content || 1;
  const site = pageUrl ? siteOf(pageUrl) : '';
  const totalChars = measures.get(root)?.chars || 1;
  // On a page made of links (a listing, a link aggregator) link lists are the content.
  const linkPage = linkDensity(measures.get(root) ?? EMPTY_STATS) > MAX_LINK_DENSITY;
  const walk = (el: Element): void => {
    const items = likeItems(el);
    for (let child = el.firstElementChild; child;) {
      let next = child.nextElementSibling;
      const stats = measures.get(child) ?? EMPTY_STATS;
      if (HEADING.test(child.tagName) && child.tagName !== 'H1') {
        const text = (child.textContent ?? '').trim();
        if (isExtrasHeading(text)) {
          // Everything after the heading in its container belongs to it, unless that is most of the content.
          let tail = 0;
          for (let sibling = next; sibling; sibling = sibling.nextElementSibling)
            tail += (measures.get(sibling) ?? EMPTY_STATS).content;
          if (tail <= EXTRAS_TAIL_SHARE * total) {
            while (next) {
              const after = next.nextElementSibling;
              next.remove();
              next = after;
            }
            // A heading that opens its wrapper ("<div><h2>Comments</h2>...</div>") announces what
            // follows the wrapper too.
            cutAfterWrappers(child, root, measures, total);
          }
          child.remove();
          child = next;
          continue;
        }
      }
      const linkList =
        !linkPage &&
        stats.links >= 2 &&
        linkDensity(stats) > MAX_LINK_DENSITY &&
        stats.chars / totalChars < LINK_LIST_SHARE &&
        !items.has(itemKey(child));
      if (linkList || (!linkPage && isPromo(child, measures, site, TEXT_COLUMN_SHARE * total))) child.remove();
      else if (linkDensity(stats) <= MAX_LINK_DENSITY || stats.links < 2) walk(child);
      child = next;
    }
  };
  walk(root);
}

/**
 * Blocks a card may repeat. Not inline text: a value inside a line ("Published by: Capcom") may
 * equal another line's ("Developed by: Capcom").
 */
const REPEAT_BLOCKS = new Set(['DIV', 'P', 'SECTION', 'LI', 'DD', 'DT']);

/** The text of a short block (a title, a price line) that a card may show twice, else ''. */
function repeatableText(el: Element, measures: Measures): string {
  const chars = measures.get(el)?.chars ?? 0;
  const block = REPEAT_BLOCKS.has(el.tagName) || HEADING.test(el.tagName);
  if (!block || chars === 0 || chars > REPEAT_MAX_CHARS) return '';
  return (el.textContent ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * A product card: one of a run of like items (a sibling of its tag and class is priced too) that
 * shows one price, or a price and its sale price. A block of many prices is a price list, whose
 * rows may well cost the same.
 */
function isPricedItem(el: Element, measures: Measures): boolean {
  const prices = measures.get(el)?.prices ?? 0;
  if (prices === 0 || prices > CARD_MAX_PRICES || el.tagName === 'TR') return false;
  const key = itemKey(el);
  if (key === undefined) return false;
  const pricedLike = (sibling: Element | null) =>
    sibling !== null && itemKey(sibling) === key && (measures.get(sibling)?.prices ?? 0) > 0;
  return pricedLike(el.previousElementSibling) || pricedLike(el.nextElementSibling);
}

/**
 * Drops the copies of a text a priced item (a product card) already shows: themes set a card's
 * title and price twice or three times, each shown at one screen width or state by style sheet.
 */
function dropRepeatsInItem(item: Element, measures: Measures): void {
  const seen = new Map<string, Element>();
  const walk = (el: Element): void => {
    for (let child = el.firstElementChild; child;) {
      const next = child.nextElementSibling;
      const text = repeatableText(child, measures);
      const first = text ? seen.get(text) : undefined;
      if (first && !first.contains(child)) child.remove();
      else {
        if (text && !first) seen.set(text, child);
        walk(child);
      }
      child = next;
    }
  };
  walk(item);
}

/** The tag and class of a block that may be one of a list's items, or undefined for a bare text block. */
function itemKey(el: Element): string | undefined {
  const cls = el.getAttribute('class');
  return cls || LIST_ITEM_TAGS.has(el.tagName) ? `${el.tagName} ${cls ?? ''}` : undefined;
}

/**
 * The kinds of item (tag and class) that `el` holds at least `MIN_LIKE_ITEMS` of: the entries of
 * a listing. One entry that is all links (a headline without a blurb) is an entry like the others,
 * not a link list.
 */
function likeItems(el: Element): Set<string | undefined> {
  const counts = new Map<string, number>();
  const items = new Set<string | undefined>();
  for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
    const key = itemKey(child);
    if (key === undefined) continue;
    const count = (counts.get(key) ?? 0) + 1;
    counts.set(key, count);
    if (count >= MIN_LIKE_ITEMS) items.add(key);
  }
  return items;
}

/**
 * Removes what follows each wrapper that `heading` opens, up to `root`, while that is a minor
 * part of the content. A `<section>` the heading opens is all it titles: a shop's carousel set as
 * a section is followed by the product's own details.
 */
function cutAfterWrappers(heading: Element, root: Element, measures: Measures, total: number): void {
  let box = heading.parentElement;
  let first: Element = heading;
  while (box && box !== root && box.firstElementChild === first && box.tagName !== 'SECTION') {
    let tail = 0;
    for (let sibling = box.nextElementSibling; sibling; sibling = sibling.nextElementSibling)
      tail += (measures.get(sibling) ?? EMPTY_STATS).content;
    if (tail > EXTRAS_TAIL_SHARE * total) return;
    while (box.nextElementSibling) box.nextElementSibling.remove();
    first = box;
    box = box.parentElement;
  }
}

/**
 * What a caption never holds: a caption-named block with one of these, or with this many
 * paragraphs, is the figure or the story around it. A caption may be a paragraph or two.
 */
const CAPTION_WRAPPER_CONTENT = 'img, picture, video, iframe, h1, h2, h3';
const CAPTION_WRAPPER_PARAGRAPHS = 3;

/** A figure's caption, or a block named as an image caption or a photo credit that is no wrapper. */
function isCaption(el: Element): boolean {
  if (el.tagName === 'FIGCAPTION') return true;
  const names = namesOf(el);
  if (
    !names ||
    !names
      .split(/\s+/)
      .some((token) => (CAPTION_TOKEN.test(token) || CAPTION_CAMEL_TOKEN.test(token)) && !TYPE_STYLE_TOKEN.test(token))
  )
    return false;
  return !el.querySelector(CAPTION_WRAPPER_CONTENT) && el.getElementsByTagName('p').length < CAPTION_WRAPPER_PARAGRAPHS;
}

/**
 * Drops image captions and photo credits from the chosen content: the story reads without
 * them, and a gallery's captions (often set twice, full and truncated) can outweigh a short
 * story. A caption-named block holding the image itself or paragraphs is a wrapper, and
 * stays; the caption inside it goes.
 */
export function dropCaptions(root: Element): void {
  const walk = (el: Element): void => {
    for (let child = el.firstElementChild; child;) {
      const next = child.nextElementSibling;
      if (isCaption(child)) child.remove();
      else walk(child);
      child = next;
    }
  };
  walk(root);
}
