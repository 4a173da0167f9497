import type { Line } from './types';

/**
 * Stage 4: page furniture out. Running headers and footers (the same words at the same height on
 * most pages, page numbers aside, or any margin line that ends in its page's number), lone page
 * numbers in the margins, and table-of-contents
 * entries with dot leaders, with the "Contents" title above them.
 */

/** Furniture lives in this share of the page's height at its top and at its bottom. */
const MARGIN_SHARE = 0.12;
/** A margin line on at least this share of the pages runs through the document. */
const REPEATED_SHARE = 0.5;
/** Heights within this many points are the same place. */
const SAME_PLACE = 4;
const PAGE_NUMBER = /^[-–—\s]*(?:page\s+)?(?:\d{1,4}|[ivxlc]{1,6})(?:\s*(?:of|\/)\s*\d{1,4})?[-–—\s]*$/i;
/** Dots in a leader before a contents entry's page number. */
const LEADER_DOTS = 4;
const CONTENTS_TITLE = /^(?:table of )?contents$/i;
/** A page with at least this many dot-leader lines is a contents page. */
const TOC_MIN_ENTRIES = 3;
/** On a contents page, an entry without leaders still ends in its page number. */
const TOC_ENTRY = /\S\s+\d{1,4}$/;

/**
 * A running head that changes with the section ("2 DESIGN 5") still carries its page's number at
 * one end; a section heading that starts with the same number is set larger than the page's text.
 */
function numbersPage(text: string, page: number): boolean {
  const words = text.split(' ');
  if (words.length < 2) return false;
  return [words[0]!, words[words.length - 1]!].some((word) => /^\d{1,4}$/.test(word) && Number(word) === page);
}

const shape = (text: string) => text.toLowerCase().replace(/\d+/g, '#').replace(/\s+/g, ' ');

function inMargin(line: Line, height: number): boolean {
  return line.y > height * (1 - MARGIN_SHARE) || line.y < height * MARGIN_SHARE;
}

function placeKey(line: Line): string {
  return `${Math.round(line.y / SAME_PLACE)}|${shape(line.text)}`;
}

export function dropFurniture(pages: Line[][], heights: number[]): Line[][] {
  const seen = new Map<string, number>();
  pages.forEach((lines, p) => {
    const keys = new Set(lines.filter((line) => inMargin(line, heights[p]!)).map(placeKey));
    for (const key of keys) seen.set(key, (seen.get(key) ?? 0) + 1);
  });
  const repeatedAt = Math.max(2, Math.ceil(pages.length * REPEATED_SHARE));
  return pages.map((lines, p) => {
    const leaders = lines.filter((line) => dotLeader(line.text)).length;
    const contentsPage = leaders >= TOC_MIN_ENTRIES;
    const sizes = lines.map((line) => line.size).sort((a, b) => a - b);
    const usual = sizes[Math.floor(sizes.length / 2)] ?? 0;
    return lines.filter((line) => {
      if (dotLeader(line.text)) return false;
      if (contentsPage && (CONTENTS_TITLE.test(line.text) || TOC_ENTRY.test(line.text))) return false;
      if (!inMargin(line, heights[p]!)) return true;
      if (PAGE_NUMBER.test(line.text) || (line.size <= usual && numbersPage(line.text, p + 1))) return false;
      return pages.length < 2 || (seen.get(placeKey(line)) ?? 0) < repeatedAt;
    });
  });
}

/** "Quays ........ 12": dots (single spaces between them allowed), then a page number; scanned back from the end. */
function dotLeader(text: string): boolean {
  let i = text.length;
  while (i > 0 && text.length - i < 4 && /\d/.test(text[i - 1]!)) i--;
  if (i === text.length) return false;
  while (i > 0 && text[i - 1] === ' ') i--;
  let dots = 0;
  while (i > 0 && dots < LEADER_DOTS) {
    if (text[i - 1] === '.') dots++;
    else if (text[i - 1] !== ' ' || text[i - 2] !== '.') break;
    i--;
  }
  return dots >= LEADER_DOTS;
}
