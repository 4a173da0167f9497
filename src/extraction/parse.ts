import { parseHTML } from 'linkedom';
import { elementEnd, opensElement } from '../text/markup';
import { asciiLowerCase } from '../text/scan';
import { checkStructure } from './structureBounds';

/**
 * `<![CDATA[` in HTML (outside SVG and MathML) is a bogus comment that ends at the next `>`, as
 * browsers read it; linkedom's parser reads a CDATA section up to `]]>` instead, so one stray
 * opener (some forum software emits them) swallowed the rest of the page. Scripts and styles are
 * raw text, where `//<![CDATA[` is common and harmless: they are skipped over, not touched.
 */
export function withoutStrayCdata(html: string): string {
  // By hand, as `/(<script\b[\s\S]*?<\/script\s*>|<style\b...)|<!\[CDATA\[[^>]*>/gi` read it: that
  // pattern rescanned the rest of the page from each unclosed `<script` and each opener without `>`.
  const lower = asciiLowerCase(html);
  const unclosed = new Set<string>();
  let openersClose = true;
  let out = '';
  let kept = 0;
  for (let lt = lower.indexOf('<'); lt >= 0; lt = lower.indexOf('<', lt + 1)) {
    const raw = RAW_TEXT.find((name) => !unclosed.has(name) && opensElement(lower, lt, name));
    if (raw !== undefined) {
      const end = elementEnd(lower, raw, lt + 1 + raw.length);
      if (end < 0) unclosed.add(raw);
      else lt = end - 1;
    } else if (openersClose && lower.startsWith('<![cdata[', lt)) {
      const gt = lower.indexOf('>', lt + 9);
      if (gt < 0) {
        openersClose = false;
        continue;
      }
      out += html.slice(kept, lt);
      kept = gt + 1;
      lt = gt;
    }
  }
  return out + html.slice(kept);
}

const RAW_TEXT = ['script', 'style'];

/** What a browser keeps in `<head>`; any other element there opens the body. */
const HEAD_CONTENT = new Set(['META', 'LINK', 'TITLE', 'SCRIPT', 'STYLE', 'BASE', 'NOSCRIPT', 'TEMPLATE']);

/**
 * Moves `node` into `body` before `before` (or at the end), unwrapping a nested `<html>` or `<body>`
 * as browsers merge them.
 */
function moveIntoBody(node: ChildNode, body: HTMLElement, before: ChildNode | null): void {
  const el = node as Element;
  if (node.nodeType === 1 && el.tagName === 'HEAD') {
    node.remove();
    return;
  }
  if (node.nodeType === 1 && (el.tagName === 'HTML' || el.tagName === 'BODY')) {
    for (const child of Array.from(node.childNodes)) moveIntoBody(child, body, before);
    node.remove();
    return;
  }
  body.insertBefore(node, before);
}

/**
 * Puts content where a browser's parser puts it. linkedom keeps elements where the markup
 * writes them: a `<div>` inside `<head>`, a `<header>` before `<body>`, a `<style>` before
 * `<html>` or a paragraph after `</html>` stay outside the body, where every reader of the body
 * misses them (some pages had all their content there), and an element before `<html>` even
 * becomes the document element. A browser opens the body at the first element that cannot be in
 * the head, and moves anything written outside `<body>` into it.
 */
function normaliseTree(document: Document): void {
  let outside = Array.from(document.childNodes);
  let html = outside.find((node): node is HTMLElement => node.nodeType === 1 && (node as Element).tagName === 'HTML');
  if (!html) {
    // `<head>` and `<body>` with no `<html>` around them: give them one.
    html = document.createElement('html');
    for (const node of outside) if (node.nodeType !== 10) html.appendChild(node);
    document.appendChild(html);
    outside = Array.from(document.childNodes);
  }
  // An `<html>` inside `<html>` is merged into it.
  for (const nested of Array.from(html.children))
    if (nested.tagName === 'HTML') nested.replaceWith(...Array.from(nested.childNodes));
  const body = Array.from(html.children).find((el): el is HTMLElement => el.tagName === 'BODY');
  if (!body) return;
  const head = Array.from(html.children).find((el) => el.tagName === 'HEAD');
  const beforeRoot = outside.slice(0, outside.indexOf(html));
  for (const node of beforeRoot) {
    if (node.nodeType === 1 && HEAD_CONTENT.has((node as Element).tagName))
      (head ?? html).insertBefore(node, (head ?? html).firstChild);
  }
  if (head) {
    let opener: ChildNode | null = head.firstChild;
    while (opener && !(opener.nodeType === 1 && !HEAD_CONTENT.has((opener as Element).tagName)))
      opener = opener.nextSibling;
    const first = body.firstChild;
    while (opener) {
      const next: ChildNode | null = opener.nextSibling;
      moveIntoBody(opener, body, first);
      opener = next;
    }
  }
  const isContent = (node: ChildNode) =>
    node.nodeType === 1 || (node.nodeType === 3 && (node as Text).data.trim() !== '');
  const stray = [...beforeRoot.filter((node) => node.parentNode === document), ...Array.from(html.childNodes)];
  let beforeBody = true;
  for (const node of stray) {
    if (node === body) beforeBody = false;
    else if (node !== head && isContent(node)) moveIntoBody(node, body, beforeBody ? body.firstChild : null);
  }
  for (const node of outside.slice(outside.indexOf(html) + 1)) if (isContent(node)) moveIntoBody(node, body, null);
}

/** Where React's streaming renderer leaves content for its script to move: a late segment and its place. */
const STREAMED_SEGMENT = /<div hidden id="S:/;

/**
 * React's streaming renderer (Next.js and others) sends parts of the page late, as hidden
 * `<div hidden id="S:x">` segments at the end of the body, and its script moves each into place:
 * the `<template id="B:x">` of a Suspense boundary (replacing the loading fallback after it, up to
 * the boundary's closing `<!--/$-->`) or the `<template id="P:x">` placeholder. Without scripts
 * the content stays hidden and out of place (product pages had all their specifications there),
 * so it is moved as the browser would.
 */
function placeStreamedSegments(document: Document): void {
  const places = new Map<string, Element>();
  for (const template of Array.from(document.getElementsByTagName('template')))
    if (/^[BP]:/.test(template.id)) places.set(template.id, template);
  for (const segment of Array.from(document.querySelectorAll('div[hidden][id^="S:"]'))) {
    const key = segment.id.slice(2);
    const boundary = places.get(`B:${key}`);
    const place = boundary ?? places.get(`P:${key}`);
    if (!place?.parentNode) continue;
    if (boundary) dropFallback(boundary);
    place.replaceWith(...Array.from(segment.childNodes));
    segment.remove();
  }
}

/** Removes a Suspense boundary's fallback: what follows its template up to the boundary's closing comment. */
function dropFallback(template: Element): void {
  let depth = 0;
  for (let node = template.nextSibling; node;) {
    const next = node.nextSibling;
    if (node.nodeType === 8) {
      const data = (node as Comment).data;
      if (data === '/$') {
        if (depth === 0) return;
        depth--;
      } else if (data === '$' || data === '$?' || data === '$!') depth++;
    }
    node.remove();
    node = next;
  }
}

/** Parses a page as a browser would see its structure; a page too deep or too big to parse is refused. */
export function parseDocument(html: string): Document {
  const source = html.includes('<![CDATA[') ? withoutStrayCdata(html) : html;
  checkStructure(source);
  const { document } = parseHTML(source);
  normaliseTree(document);
  // Only pages that stream segments pay for looking for them.
  if (STREAMED_SEGMENT.test(source)) placeStreamedSegments(document);
  return document;
}
