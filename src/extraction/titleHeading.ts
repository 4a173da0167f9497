/**
 * The page's own title at the top of its main content ("# The headline") repeats the title the
 * metadata (or the front matter) already carries; the content is the body. Only a heading
 * that opens the content and says what the page title says is dropped.
 */

const HEADING = /^H[12]$/;
/** Shorter texts match titles by accident ("News", "Home"). */
const MIN_TITLE_CHARS = 8;

function normalized(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
}

/** The first element under `root` with any text: what the content opens with. */
function opening(root: Element): Element | undefined {
  let el: Element | null = root.firstElementChild;
  while (el) {
    if ((el.textContent ?? '').trim()) {
      if (HEADING.test(el.tagName) || !el.firstElementChild) return el;
      el = el.firstElementChild;
    } else {
      el = el.nextElementSibling;
    }
  }
  return undefined;
}

export function dropTitleHeading(root: Element, pageTitle: string): void {
  const heading = opening(root);
  if (!heading || !HEADING.test(heading.tagName)) return;
  const text = normalized(heading.textContent ?? '');
  const title = normalized(pageTitle);
  if (
    text.length >= MIN_TITLE_CHARS &&
    title.length >= MIN_TITLE_CHARS &&
    (title.includes(text) || text.includes(title))
  )
    heading.remove();
}
