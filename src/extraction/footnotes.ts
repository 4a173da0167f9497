import type TurndownService from 'turndown';

/**
 * Footnotes as GFM writes them: `[^1]` where the note is referenced, `[^1]: text` for the note.
 * Pages mark them in many ways (`role="doc-noteref"`, a superscript link to `#fn1`, a
 * `footnotes` section); what they share is a link into the page that lands on a note. The DOM is
 * marked before URLs are resolved (which drops in-page links), and the marks become Markdown.
 */

const REFERENCE = 'data-footnote-ref';
const NOTE = 'data-footnote';

/** Containers that hold a page's notes, in the markup of common generators and the DPUB roles. */
const NOTES_CONTAINER =
  '[role="doc-endnotes"], [role="doc-footnotes"], .footnotes, .footnote, .footnotes-list, .references, .reflist';
/** Link text that is a note's label: "1", "[2]", "a", "*". */
const LABEL = /^\[?([\w*†‡]{1,4})\]?$/;

function isNote(el: Element): boolean {
  return /^doc-(end|foot)note$/.test(el.getAttribute('role') ?? '') || el.closest(NOTES_CONTAINER) !== null;
}

/** Marks note references and the notes they point to; drops the notes' links back to the text. */
export function markFootnotes(doc: Document): void {
  const labels = new Map<Element, string>();
  for (const link of Array.from(doc.querySelectorAll('a[href^="#"]'))) {
    const isReference =
      link.getAttribute('role') === 'doc-noteref' ||
      link.closest('sup') !== null ||
      /footnote|noteref/i.test(link.getAttribute('class') ?? '');
    if (!isReference) continue;
    const id = decodeURIComponent((link.getAttribute('href') ?? '').slice(1));
    const target = id ? doc.getElementById(id) : null;
    if (!target || target.contains(link)) continue;
    const note = target.closest('li') ?? target;
    if (!isNote(note)) continue;
    let label = labels.get(note);
    if (!label) {
      label = LABEL.exec((link.textContent ?? '').trim())?.[1] ?? String(labels.size + 1);
      labels.set(note, label);
      note.setAttribute(NOTE, label);
    }
    const sup =
      link.parentElement?.tagName === 'SUP' && link.parentElement.textContent?.trim() === link.textContent?.trim()
        ? link.parentElement
        : link;
    const marker = doc.createElement('span');
    marker.setAttribute(REFERENCE, label);
    // Turndown drops elements without text before any rule sees them.
    marker.textContent = label;
    sup.replaceWith(marker);
  }
  for (const note of labels.keys()) {
    for (const back of Array.from(note.querySelectorAll('a[href^="#"]'))) {
      if (back.getAttribute('role') === 'doc-backlink' || /^(?:[↩↑^⤴\s]|\uFE0E|\uFE0F)*$/.test(back.textContent ?? ''))
        back.remove();
    }
  }
}

/** References whose note is not in `root` (the page's notes were left out) would dangle: drop them. */
export function dropOrphanReferences(root: Element): void {
  const notes = new Set(Array.from(root.querySelectorAll(`[${NOTE}]`)).map((note) => note.getAttribute(NOTE)));
  for (const ref of Array.from(root.querySelectorAll(`[${REFERENCE}]`))) {
    if (!notes.has(ref.getAttribute(REFERENCE))) ref.remove();
  }
}

export function addFootnoteRules(service: TurndownService): void {
  service.addRule('footnoteReference', {
    filter: (node) => node.nodeName === 'SPAN' && node.hasAttribute(REFERENCE),
    replacement: (_content, node) => `[^${(node as Element).getAttribute(REFERENCE)}]`,
  });
  service.addRule('footnote', {
    filter: (node) => node.hasAttribute?.(NOTE) ?? false,
    replacement(content, node) {
      const text = content
        .trim()
        .replace(/\n{2,}/g, '\n')
        .replace(/\n/g, '\n    ');
      return `\n\n[^${(node as Element).getAttribute(NOTE)}]: ${text}\n\n`;
    },
  });
}
