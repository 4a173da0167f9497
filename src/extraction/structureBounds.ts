import { Parser } from 'htmlparser2';
import { ServiceError } from '../errors';

/**
 * How deep elements may nest. Chromium's parser stops nesting at this depth too; real pages stay
 * far below it (the deepest of the 1,678 benchmark pages nests 56 levels), while linkedom's
 * parser (like htmlparser2's, whose open-element stack it grows at the front) takes time
 * quadratic in the depth: 1.3 s at 50,000 levels, minutes at 500,000. The Markdown writer
 * recurses per level and overflows the stack near 2,000 anyway.
 */
export const MAX_DEPTH = 512;

/**
 * Nodes (elements, attributes, texts, comments) a page may have. Each costs linkedom and the
 * extractor some 15-30 µs and 2 KB: this many is seconds and a few hundred megabytes; the
 * largest benchmark page has 30,000.
 */
export const MAX_NODES = 250_000;

/**
 * Refuses, before linkedom builds it, a page whose tree is too deep or too big to read in
 * bounded time and memory. htmlparser2 is linkedom's own parser, so the depth counted is the
 * depth linkedom would build; counting alone is linear and stops at the first bound crossed.
 */
export function checkStructure(html: string): void {
  let depth = 0;
  let nodes = 0;
  const tooLarge = (why: string) => new ServiceError('page_too_large', why);
  const count = () => {
    if (++nodes > MAX_NODES) throw tooLarge(`more than ${MAX_NODES} nodes`);
  };
  const parser = new Parser(
    {
      onopentagname() {
        count();
        if (++depth > MAX_DEPTH) throw tooLarge(`elements nested more than ${MAX_DEPTH} deep`);
      },
      onclosetag() {
        depth--;
      },
      onattribute: count,
      ontext: count,
      oncomment: count,
    },
    // Entities change no structure: leaving them undecoded makes the count cheaper.
    { decodeEntities: false },
  );
  parser.end(html);
}
