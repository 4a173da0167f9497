import { rawElements, replaceTags } from '../text/markup';
import { asciiLowerCase } from '../text/scan';

/**
 * Tells whether fetched HTML is only a shell that scripts fill in, or a bot challenge, so the
 * `standard` effort knows a browser would see more. Deliberately cheap: regular expressions
 * over the raw text, no DOM, since it runs on every fetch.
 */

/** Visible text below this many characters, with scripts present, means the page is drawn by script. */
const MIN_VISIBLE_TEXT = 250;

/** Read by hand (src/text/markup.ts): patterns for these rescanned the rest of the page from each unclosed opener. */
const INVISIBLE_ELEMENTS = ['script', 'style', 'noscript', 'template', 'svg', 'head'];
const ENTITIES = /&[#\w]+;/g;

/** Phrases of interstitial pages that check for a real browser before showing the site. */
const CHALLENGE =
  /(just a moment\.\.\.|checking your browser|enable javascript and cookies to continue|cf-chl-|challenge-platform|ddos protection by|please turn javascript on|attention required!)/i;

/** `html` with each invisible element, whole, replaced by a space. */
function withoutElements(html: string): string {
  let out = '';
  let kept = 0;
  for (const element of rawElements(asciiLowerCase(html), INVISIBLE_ELEMENTS)) {
    out += `${html.slice(kept, element.start)} `;
    kept = element.end;
  }
  return out + html.slice(kept);
}

export function needsBrowser(html: string): boolean {
  if (CHALLENGE.test(html.slice(0, 20_000))) return true;
  if (!/<script\b/i.test(html)) return false;
  const visible = replaceTags(withoutElements(html), ' ').replace(ENTITIES, ' ').replace(/\s+/g, ' ').trim();
  return visible.length < MIN_VISIBLE_TEXT;
}
