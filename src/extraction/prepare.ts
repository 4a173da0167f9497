/**
 * Page clean-up that every conversion needs, whatever part of the page it keeps: things a
 * reader never sees go, and every link and image points somewhere absolute and real.
 */

/** Elements that are never content. */
const NEVER_CONTENT = 'script, style, noscript, template, link, meta, object, embed, canvas, dialog[aria-modal="true"]';

/** Hidden in every browser, whatever the style sheets say. */
const HIDDEN = '[hidden], [aria-hidden="true"], [style*="display:none" i], [style*="display: none" i], [style*="visibility:hidden" i], [style*="visibility: hidden" i]';

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

/** A `<noscript>` in the body with this much text is the page's script-free view (forum software serves its posts so), not a notice. */
const NOSCRIPT_PAGE_CHARS = 500;

export function removeInvisible(root: ParentNode): void {
  for (const el of Array.from(root.querySelectorAll('body noscript'))) {
    if (el.querySelector('p, div, article') && (el.textContent ?? '').length >= NOSCRIPT_PAGE_CHARS) el.replaceWith(...Array.from(el.childNodes));
  }
  for (const el of Array.from(root.querySelectorAll(NEVER_CONTENT))) el.remove();
  // Some sites hide the heading of an open accordion for screen readers only: keep text-bearing <details>.
  const hidden = Array.from(root.querySelectorAll(HIDDEN)).filter((el) => el.tagName !== 'DETAILS');
  // Measuring the page is a walk of all of it: only worth it when a hidden block is big.
  const sizes = hidden.map((el) => textLength(el));
  const largest = Math.max(0, ...sizes);
  // A Document has no text content of its own: its body does.
  const pageChars = largest >= HIDDEN_PAGE_MIN_CHARS ? textLength((root as Document).body ?? root) : Infinity;
  hidden.forEach((el, i) => {
    if (!el.isConnected) return;
    if (sizes[i]! >= HIDDEN_PAGE_SHARE * pageChars) {
      for (const attr of ['hidden', 'aria-hidden', 'style']) el.removeAttribute(attr);
    } else {
      el.remove();
    }
  });
}

/** Characters of text under `node`, whitespace included; a walk, since linkedom's textContent builds the whole string. */
function textLength(node: ParentNode): number {
  let chars = 0;
  for (let child = (node as Node).firstChild; child; child = child.nextSibling) {
    if (child.nodeType === 3) chars += (child as Text).data.length;
    else if (child.nodeType === 1) chars += textLength(child as Element);
  }
  return chars;
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
  return !src || src.startsWith('data:') || /(^|\/)(blank|spacer|pixel|placeholder|lazy)[^/]*\.(gif|png|svg)/i.test(src);
}

/** Resolves lazy images and makes every link and image URL absolute; drops dead links. */
export function resolveUrls(root: ParentNode, base: string): void {
  for (const img of Array.from(root.querySelectorAll('img'))) {
    let src = img.getAttribute('src');
    if (isPlaceholder(src)) {
      const lazy = LAZY_SRC_ATTRS.map((attr) => img.getAttribute(attr)).find((value) => value && !value.startsWith('data:'));
      const fromSet = LAZY_SRCSET_ATTRS.map((attr) => img.getAttribute(attr)).find(Boolean);
      src = lazy ?? (fromSet ? bestFromSrcset(fromSet) ?? null : null) ?? src;
    }
    if (!src || src.startsWith('data:')) {
      const picture = img.closest('picture')?.querySelector('source[srcset]')?.getAttribute('srcset');
      src = picture ? bestFromSrcset(picture) ?? null : null;
    }
    const resolved = src ? toAbsolute(src, base) : undefined;
    if (resolved) img.setAttribute('src', resolved);
    else img.remove();
  }
  for (const a of Array.from(root.querySelectorAll('a[href]'))) {
    const resolved = toAbsolute(a.getAttribute('href') ?? '', base);
    if (resolved) a.setAttribute('href', resolved);
    else a.removeAttribute('href');
  }
}
