import {
  ADD_TO_CART,
  ARTICLE_ITEMTYPE,
  ARTICLE_JSON_LD,
  DISCUSSION_ITEMTYPE,
  declaresDiscussion,
  MAX_CART_CONTROLS,
} from './main/patterns';
import { namesOf } from './elementNames';
import type { PageMetadata } from '../types';
import { replaceTags } from '../text/markup';

/**
 * Page metadata from Open Graph, Twitter cards, Dublin Core, schema.org JSON-LD and plain
 * HTML, in that order of trust for each field (spec §2.5). URLs come back absolute.
 */

/**
 * Every `<meta>` value by its lower-cased property, name or itemprop, the first one winning.
 * Gathered in one walk: a query per key would walk a large page dozens of times.
 */
type MetaValues = Map<string, string>;

/** The elements metadata is read from, gathered in one walk of the page. */
interface MetadataElements {
  metas: Element[];
  links: Element[];
  jsonLd: Element[];
  /** The `itemtype` of every microdata item. */
  itemtypes: string[];
  /** Controls named as adding to a cart (`add-to-cart`, `addToBag`). */
  cartControls: number;
  title?: Element;
  /** The first `[rel=author]`, or `[itemprop=name]` inside `[itemprop=author]`. */
  author?: Element;
}

/**
 * One walk instead of a selector query per kind: on linkedom every query walks the whole page
 * through a matcher. Elements are compared by `localName`, which linkedom does not re-case.
 */
function metadataElements(doc: Document): MetadataElements {
  const found: MetadataElements = {
    metas: [],
    links: [],
    jsonLd: [],
    itemtypes: [],
    cartControls: 0,
  };
  const walk = (el: Element, inAuthor: boolean): void => {
    for (let child = el.firstElementChild; child; child = child.nextElementSibling) {
      const name = child.localName;
      if (name === 'meta') found.metas.push(child);
      else if (name === 'link') found.links.push(child);
      else if (name === 'title') found.title ??= child;
      else if (name === 'template') continue;
      else if (name === 'script') {
        if (child.getAttribute('type')?.toLowerCase() === 'application/ld+json') found.jsonLd.push(child);
        continue;
      }
      const itemtype = child.getAttribute('itemtype');
      if (itemtype !== null) found.itemtypes.push(itemtype);
      if (ADD_TO_CART.test(controlNames(child))) found.cartControls++;
      if (
        !found.author &&
        (child.getAttribute('rel') === 'author' || (inAuthor && child.getAttribute('itemprop') === 'name'))
      )
        found.author = child;
      walk(child, inAuthor || child.getAttribute('itemprop') === 'author');
    }
  };
  walk(doc as unknown as Element, false);
  return found;
}

/** The words a control is named by: its class, id and form name. */
function controlNames(el: Element): string {
  return `${namesOf(el)} ${el.getAttribute('name') ?? ''}`;
}

function metaValues(metas: Element[]): MetaValues {
  const values: MetaValues = new Map();
  for (const el of metas) {
    const value = clean(el.getAttribute('content'));
    if (!value) continue;
    for (const attr of ['property', 'name', 'itemprop']) {
      const key = el.getAttribute(attr)?.trim().toLowerCase();
      if (key && !values.has(`${attr}:${key}`)) values.set(`${attr}:${key}`, value);
    }
  }
  return values;
}

function metaContent(values: MetaValues, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    for (const attr of ['property', 'name', 'itemprop']) {
      const value = values.get(`${attr}:${key}`);
      if (value) return value;
    }
  }
  return undefined;
}

function clean(value: string | null | undefined): string | undefined {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : undefined;
}

function absolute(value: string | undefined, base: string): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value, base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The base every relative URL of the page resolves against: `<base href>` or the page URL. */
export function documentBase(doc: Document, pageUrl: string): string {
  return absolute(doc.querySelector('base[href]')?.getAttribute('href') ?? undefined, pageUrl) ?? pageUrl;
}

interface JsonLdHints {
  author?: string;
  publisher?: string;
  headline?: string;
  description?: string;
  image?: string;
  type?: string;
}

/**
 * Every JSON-LD block of the page, parsed once for all that is read from them; a block that does
 * not parse is left out.
 */
function parseJsonLd(scripts: Element[]): unknown[] {
  const blocks: unknown[] = [];
  for (const script of scripts) {
    try {
      blocks.push(JSON.parse(script.textContent ?? ''));
    } catch {
      continue;
    }
  }
  return blocks;
}

/** The first schema.org object that looks like the page's main entity. */
function jsonLdHints(blocks: unknown[]): JsonLdHints {
  const hints: JsonLdHints = {};
  for (const data of blocks) {
    const queue: unknown[] = [data];
    while (queue.length > 0) {
      const item = queue.shift();
      if (Array.isArray(item)) {
        queue.push(...item);
        continue;
      }
      if (!item || typeof item !== 'object') continue;
      const obj = item as Record<string, unknown>;
      if (Array.isArray(obj['@graph'])) queue.push(...obj['@graph']);
      hints.author ??= personName(obj.author);
      hints.publisher ??= personName(obj.publisher);
      hints.headline ??= typeof obj.headline === 'string' ? clean(obj.headline) : undefined;
      hints.description ??= typeof obj.description === 'string' ? clean(obj.description) : undefined;
      hints.image ??= imageUrl(obj.image);
    }
  }
  return hints;
}

function personName(value: unknown): string | undefined {
  if (typeof value === 'string') return clean(value);
  if (Array.isArray(value)) {
    const names = value.map(personName).filter((name): name is string => Boolean(name));
    return names.length > 0 ? names.join(', ') : undefined;
  }
  if (value && typeof value === 'object' && typeof (value as { name?: unknown }).name === 'string') {
    return clean((value as { name: string }).name);
  }
  return undefined;
}

function imageUrl(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return imageUrl(value[0]);
  if (value && typeof value === 'object') {
    const url = (value as { url?: unknown }).url;
    return typeof url === 'string' ? url : undefined;
  }
  return undefined;
}

/** Icon links in order of preference; the browser default `/favicon.ico` is not guessed. */
function favicon(links: Element[], base: string): string | undefined {
  const rank = (rel: string): number => {
    const tokens = rel.toLowerCase().split(/\s+/);
    if (tokens.includes('icon') && tokens.includes('shortcut')) return 1;
    if (tokens.includes('icon')) return 0;
    if (tokens.includes('apple-touch-icon') || tokens.includes('apple-touch-icon-precomposed')) return 2;
    if (tokens.includes('mask-icon')) return 3;
    return -1;
  };
  const best = links
    .filter((link) => link.hasAttribute('rel') && link.hasAttribute('href'))
    .map((link) => ({ href: link.getAttribute('href') ?? '', rank: rank(link.getAttribute('rel') ?? '') }))
    .filter((link) => link.rank >= 0 && link.href)
    .sort((a, b) => a.rank - b.rank)[0];
  return absolute(best?.href, base);
}

/** What the page says it is, in its metadata: the extractor reads such pages their own way. */
export interface PageSigns {
  /** One product, by Open Graph type or schema.org data. */
  product: boolean;
  /** That product's description in its schema.org data, as plain text. */
  productDescription?: string;
  /** A forum thread or a question with answers, by schema.org type. */
  discussion: boolean;
  /** An article or a blog post, by Open Graph type or schema.org type. */
  article: boolean;
}

/**
 * The page's metadata (spec §2.5) and what it says the page is. Read before the page is cleaned:
 * JSON-LD lives in scripts.
 */
export function extractMetadata(doc: Document, pageUrl: string): { metadata: PageMetadata; signs: PageSigns } {
  const elements = metadataElements(doc);
  const jsonLd = parseJsonLd(elements.jsonLd);
  const metadata = metadataOf(doc, elements, jsonLd, pageUrl);
  const products = jsonLdProducts(jsonLd);
  const signs: PageSigns = {
    product: describesProduct(elements, products, metadata),
    discussion: isDiscussion(elements),
    article: isArticle(elements, metadata),
  };
  const description = products.length === 1 ? plainText(doc, products[0]!.description) : undefined;
  if (description) signs.productDescription = description;
  return { metadata, signs };
}

function metadataOf(doc: Document, elements: MetadataElements, jsonLd: unknown[], pageUrl: string): PageMetadata {
  const base = documentBase(doc, pageUrl);
  const ld = jsonLdHints(jsonLd);
  const meta = metaValues(elements.metas);
  const canonical =
    elements.links
      .find(
        (link) =>
          link.hasAttribute('href') &&
          (link.getAttribute('rel') ?? '').toLowerCase().split(/\s+/).includes('canonical'),
      )
      ?.getAttribute('href') ?? undefined;
  const metadata: PageMetadata = {
    title: metaContent(meta, ['og:title', 'twitter:title']) ?? clean(elements.title?.textContent) ?? ld.headline,
    description:
      metaContent(meta, ['og:description', 'twitter:description', 'description', 'dc.description']) ?? ld.description,
    author:
      metaContent(meta, ['author', 'article:author', 'dc.creator', 'parsely-author', 'sailthru.author', 'byl']) ??
      ld.author ??
      clean(elements.author?.textContent),
    publisher: metaContent(meta, ['og:publisher', 'article:publisher', 'publisher', 'dc.publisher']) ?? ld.publisher,
    image: absolute(
      metaContent(meta, ['og:image', 'og:image:url', 'og:image:secure_url', 'twitter:image', 'twitter:image:src']) ??
        ld.image,
      base,
    ),
    site_name: metaContent(meta, ['og:site_name', 'application-name', 'apple-mobile-web-app-title']),
    url: absolute(metaContent(meta, ['og:url']) ?? canonical, base),
    type: metaContent(meta, ['og:type']),
    favicon: favicon(elements.links, base),
  };
  for (const key of Object.keys(metadata) as (keyof PageMetadata)[]) {
    if (metadata[key] === undefined) delete metadata[key];
  }
  return metadata;
}

/** schema.org types of one product (JSON-LD `@type`, microdata `itemtype`). */
const PRODUCT_TYPE = /^(https?:\/\/schema\.org\/)?(Product|ProductGroup|ProductModel|IndividualProduct)$/i;

function isProductType(value: unknown): boolean {
  if (typeof value === 'string') return PRODUCT_TYPE.test(value.trim());
  const named = (type: unknown) => typeof type === 'string' && PRODUCT_TYPE.test(type.trim());
  return Array.isArray(value) && value.some(named);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object';
}

/** The schema.org products at the top level of the JSON-LD blocks or in their `@graph`. */
function jsonLdProducts(blocks: unknown[]): Record<string, unknown>[] {
  const products: Record<string, unknown>[] = [];
  const add = (item: unknown): void => {
    if (isObject(item) && isProductType(item['@type'])) products.push(item);
  };
  for (const data of blocks) {
    for (const item of Array.isArray(data) ? data : [data]) {
      add(item);
      const graph = isObject(item) ? item['@graph'] : undefined;
      if (Array.isArray(graph)) graph.forEach(add);
    }
  }
  return products;
}

/**
 * Whether the page presents one product, as a shop's product page does: its Open Graph type is a
 * product, or its schema.org data (JSON-LD at the top level or in `@graph`, or microdata) describes
 * exactly one Product; a listing describes many. A page with no such data sells one product when
 * it has a few add-to-cart controls (the button, its form, a sticky copy), where a listing has one
 * on every item. Read before scripts and controls are removed.
 */
function describesProduct(elements: MetadataElements, products: unknown[], metadata: PageMetadata): boolean {
  if (metadata.type && /^(og:)?product\b/i.test(metadata.type)) return true;
  if (products.length > 0) return products.length === 1;
  const items = elements.itemtypes.filter((itemtype) => isProductType(itemtype)).length;
  if (items > 0) return items === 1;
  return elements.cartControls > 0 && elements.cartControls <= MAX_CART_CONTROLS;
}

/** Whether the `<` at `at` opens an HTML tag (`</?[a-z]`); a bare `<` (as in "5 < 6") does not. */
function opensTag(text: string, at: number): boolean {
  const name = text[at + 1] === '/' ? at + 2 : at + 1;
  return /[a-z]/i.test(text[name] ?? '');
}

/**
 * A description as plain text: markup some shops leave in it goes, written or escaped
 * (`&lt;p&gt;`). Tags become spaces, so block boundaries still part words, and the page's parser
 * decodes the entities. A value with no space in it is not prose (some shops URL-encode theirs).
 */
function plainText(doc: Document, value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const holder = doc.createElement('div');
  holder.innerHTML = replaceTags(value, ' ', opensTag);
  const text = clean(replaceTags(holder.textContent ?? '', ' ', opensTag));
  return text && text.includes(' ') ? text : undefined;
}

/** Whether the page declares itself a discussion (a forum thread, a question and its answers) in schema.org terms. */
function isDiscussion(elements: MetadataElements): boolean {
  return (
    elements.itemtypes.some((itemtype) => DISCUSSION_ITEMTYPE.test(itemtype)) ||
    elements.jsonLd.some((script) => declaresDiscussion(script.textContent ?? ''))
  );
}

/** Whether the page declares itself an article or a post, in Open Graph or schema.org terms. */
function isArticle(elements: MetadataElements, metadata: PageMetadata): boolean {
  if (metadata.type && /^article\b/i.test(metadata.type)) return true;
  if (elements.itemtypes.some((itemtype) => ARTICLE_ITEMTYPE.test(itemtype.trim()))) return true;
  return elements.jsonLd.some((script) => ARTICLE_JSON_LD.test(script.textContent ?? ''));
}
