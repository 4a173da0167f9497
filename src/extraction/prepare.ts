import { namesOf } from './elementNames';

/**
 * Page clean-up that every conversion needs, whatever part of the page it keeps: things a
 * reader never sees go, and every link and image points somewhere absolute and real.
 */

/** Elements that are never content (by `localName`: linkedom's `tagName` upper-cases on every read). */
const NEVER_CONTENT = new Set(['script', 'style', 'noscript', 'template', 'link', 'meta', 'object', 'embed', 'canvas']);

/** Hidden in every browser, whatever the style sheets say. */
function hiddenByMarkup(el: Element): boolean {
  if (el.hasAttribute('hidden') || el.getAttribute('aria-hidden') === 'true') return true;
  const style = el.getAttribute('style')?.toLowerCase();
  return (
    style !== undefined &&
    (style.includes('display:none') ||
      style.includes('display: none') ||
      style.includes('visibility:hidden') ||
      style.includes('visibility: hidden'))
  );
}

/** Attributes that hold the real image where `src` is a lazy-loading placeholder. */
const LAZY_SRC_ATTRS = ['data-src', 'data-lazy-src', 'data-original', 'data-url', 'data-hi-res-src', 'data-full-src'];
const LAZY_SRCSET_ATTRS = ['data-srcset', 'data-lazy-srcset', 'srcset'];

/**
 * A hidden block holding at least this share of the page's text is the page itself, hidden
 * until a script shows it (an age gate, a store app that reveals the product once it loads).
 */
const HIDDEN_PAGE_SHARE = 0.5;
/** ... and at least this many characters: small hidden blocks are never the page. */
const HIDDEN_PAGE_MIN_CHARS = 500;

/** Elements a page marks its content with. */
const CONTENT_LANDMARKS = 'main, [role="main"], article';

/**
 * A hidden block inside a visible `main` or `article` is its content when it is nearly all its
 * text: a hidden copy of an article (its raw Markdown for a "copy" button) is about half.
 */
const HIDDEN_LANDMARK_SHARE = 0.8;

/**
 * A `<noscript>` in the body with this much text is the page's script-free view (forum software serves
 * its posts so), not a notice.
 */
const NOSCRIPT_PAGE_CHARS = 500;

/**
 * Notes the ids of the panels `el` opens when it is a collapsed disclosure (an accordion's
 * question, a "show more" toggle): a reader opens them with a click, so they are content though
 * hidden. A control that opens a popup (`aria-haspopup`) opens a menu, which is not.
 */
function noteCollapsedPanels(el: Element, panels: Set<string>): void {
  if (el.getAttribute('aria-expanded') !== 'false' || el.hasAttribute('aria-haspopup')) return;
  for (const id of (el.getAttribute('aria-controls') ?? '').split(/\s+/)) if (id) panels.add(id);
}

/**
 * Removes what a reader never sees: scripts, styles and their kin, modal dialogs, and elements
 * hidden by markup, save the collapsed panels of a disclosure (an FAQ's answers). One walk of
 * the page: a selector query per kind walked it once each.
 */
export function removeInvisible(root: ParentNode): void {
  const hidden: Element[] = [];
  const collapsed = new Set<string>();
  const walk = (el: Element, inBody: boolean): void => {
    for (let child = el.firstElementChild; child;) {
      const next = child.nextElementSibling;
      const name = child.localName;
      noteCollapsedPanels(child, collapsed);
      if (
        name === 'noscript' &&
        inBody &&
        child.querySelector('p, div, article') &&
        (child.textContent ?? '').length >= NOSCRIPT_PAGE_CHARS
      ) {
        const first = child.firstElementChild;
        child.replaceWith(...Array.from(child.childNodes));
        // Its content is now where it stood: walk it from there.
        child = first ?? next;
        continue;
      }
      if (NEVER_CONTENT.has(name) || (name === 'dialog' && child.getAttribute('aria-modal') === 'true')) child.remove();
      else {
        // Some sites hide the heading of an open accordion for screen readers only: keep text-bearing <details>.
        if (name !== 'details' && hiddenByMarkup(child)) hidden.push(child);
        walk(child, inBody || name === 'body');
      }
      child = next;
    }
  };
  walk(root as Element, false);
  // Measuring the page is a walk of all of it: only worth it when a hidden block is big.
  const sizes = hidden.map((el) => textLength(el));
  const largest = Math.max(0, ...sizes);
  // A Document has no text content of its own: its body does.
  const pageChars = largest >= HIDDEN_PAGE_MIN_CHARS ? textLength((root as Document).body ?? root) : Infinity;
  const content = largest >= HIDDEN_PAGE_MIN_CHARS ? hiddenContent(root, hidden, sizes) : new Set<Element>();
  hidden.forEach((el, i) => {
    if (!el.isConnected) return;
    const size = sizes[i]!;
    const page = size >= HIDDEN_PAGE_SHARE * pageChars;
    const marked = content.has(el) && size >= HIDDEN_PAGE_MIN_CHARS;
    if (collapsed.has(el.id) || page || marked || isCollapsedAnswer(el, size)) {
      for (const attr of ['hidden', 'aria-hidden', 'style']) el.removeAttribute(attr);
    } else {
      el.remove();
    }
  });
}

/** A collapsed answer holds at least this much text, and its question at most this much. */
const ANSWER_MIN_CHARS = 100;
const QUESTION_MAX_CHARS = 200;

/** Class and id words of a FAQ's or an accordion's parts. */
const ACCORDION_NAMES = /faq|accordion|collaps|answer|question|toggle|expand/i;

/**
 * A block a reader opens by its question (a FAQ's answer, an accordion's panel): hidden text
 * right after a short visible block that toggles it, named so or marked `aria-expanded`. A
 * tooltip beside its label is not one; nor is a menu's folded panel of links under a link.
 */
function isCollapsedAnswer(el: Element, chars: number): boolean {
  if (chars < ANSWER_MIN_CHARS || el.getAttribute('aria-hidden') === 'true') return false;
  const question = el.previousElementSibling;
  if (!question || hiddenByMarkup(question)) return false;
  const questionChars = textLength(question);
  if (questionChars === 0 || questionChars > QUESTION_MAX_CHARS) return false;
  const named = ACCORDION_NAMES.test(`${namesOf(question)} ${namesOf(el)}`);
  if (!named && !question.hasAttribute('aria-expanded')) return false;
  return linkText(question) < 0.5 * questionChars && linkText(el) < 0.5 * chars;
}

/** Characters of text inside the links under `el`, or all of it for a link. */
function linkText(el: Element): number {
  if (el.localName === 'a') return textLength(el);
  let chars = 0;
  for (const a of Array.from(el.getElementsByTagName('a'))) chars += textLength(a);
  return chars;
}

/**
 * The hidden blocks that hold the page's marked content (`main`, `article`), which a script shows
 * once it loads (a shop's product behind a "defer" wrapper, a store behind an age gate) while the
 * visible rest is menus: the hidden blocks around the landmarks when every landmark is hidden,
 * and a hidden block that is nearly all of a visible landmark's text.
 */
function hiddenContent(root: ParentNode, hidden: Element[], sizes: number[]): Set<Element> {
  const found = new Set<Element>();
  const landmarks = Array.from(root.querySelectorAll(CONTENT_LANDMARKS));
  const around = new Set<Element>();
  let allHidden = landmarks.length > 0;
  for (const landmark of landmarks) {
    const holders = hidden.filter((el) => el.contains(landmark));
    if (holders.length === 0) allHidden = false;
    for (const el of holders) around.add(el);
    if (holders.length > 0) continue;
    const inside = hidden
      .map((el, i) => (sizes[i]! >= HIDDEN_PAGE_MIN_CHARS && landmark.contains(el) ? i : -1))
      .filter((i) => i >= 0);
    if (inside.length === 0) continue;
    const landmarkChars = textLength(landmark);
    for (const i of inside) if (sizes[i]! >= HIDDEN_LANDMARK_SHARE * landmarkChars) found.add(hidden[i]!);
  }
  if (allHidden) for (const el of around) found.add(el);
  return found;
}

/**
 * Characters of text under `node`, whitespace included; a walk, since linkedom's textContent builds
 * the whole string.
 */
function textLength(node: ParentNode): number {
  let chars = 0;
  for (let child = (node as Node).firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) chars += (child as Text).data.length;
    else if (child.nodeType === 1) chars += textLength(child as Element);
  }
  return chars;
}

/** `value` resolved against the page's base, or undefined for a link to nowhere. */
type Resolver = (value: string) => string | undefined;

/** A resolver that remembers its answers: pages link the same few URLs many times over. */
function resolverFor(base: string): Resolver {
  const known = new Map<string, string | undefined>();
  return (value) => {
    if (known.has(value)) return known.get(value);
    const resolved = toAbsolute(value, base);
    known.set(value, resolved);
    return resolved;
  };
}

function toAbsolute(value: string, base: string): string | undefined {
  const trimmed = value.trim();
  if (!trimmed || trimmed.startsWith('#') || /^(javascript|vbscript|data):/i.test(trimmed)) return undefined;
  try {
    return new URL(trimmed, base).href;
  } catch {
    return undefined;
  }
}

/** The widest candidate of a srcset, which is the one a reader would want. */
function bestFromSrcset(srcset: string): string | undefined {
  let best: { url: string; size: number } | undefined;
  for (const candidate of srcset.split(/,\s+(?=\S)/)) {
    const [url, descriptor = '1x'] = candidate.trim().split(/\s+/);
    if (!url) continue;
    const size = parseFloat(descriptor) * (descriptor.endsWith('x') ? 1000 : 1);
    if (!best || size > best.size) best = { url, size: Number.isFinite(size) ? size : 0 };
  }
  return best?.url;
}

function isPlaceholder(src: string | null): boolean {
  return (
    !src || src.startsWith('data:') || /(^|\/)(blank|spacer|pixel|placeholder|lazy)[^/]*\.(gif|png|svg)/i.test(src)
  );
}

/** Resolves lazy images and makes every link and image URL absolute; drops dead links. */
export function resolveUrls(root: Document | Element, base: string): void {
  const resolve = resolverFor(base);
  // By tag name: linkedom answers that with a plain walk, a selector through a matcher per element.
  for (const img of Array.from(root.getElementsByTagName('img'))) {
    let src = img.getAttribute('src');
    if (isPlaceholder(src)) {
      const lazy = LAZY_SRC_ATTRS.map((attr) => img.getAttribute(attr)).find(
        (value) => value && !value.startsWith('data:'),
      );
      const fromSet = LAZY_SRCSET_ATTRS.map((attr) => img.getAttribute(attr)).find(Boolean);
      src = lazy ?? (fromSet ? (bestFromSrcset(fromSet) ?? null) : null) ?? src;
    }
    if (!src || src.startsWith('data:')) {
      const picture = img.closest('picture')?.querySelector('source[srcset]')?.getAttribute('srcset');
      src = picture ? (bestFromSrcset(picture) ?? null) : null;
    }
    const resolved = src ? resolve(src) : undefined;
    if (resolved) img.setAttribute('src', resolved);
    else img.remove();
  }
  for (const a of Array.from(root.getElementsByTagName('a'))) {
    const href = a.getAttribute('href');
    if (href === null) continue;
    const resolved = resolve(href);
    if (resolved) a.setAttribute('href', resolved);
    else a.removeAttribute('href');
  }
}
