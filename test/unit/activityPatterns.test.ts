import { parseModelJson } from '../../src/model/modelJson';
import { linksOf } from '../../src/reading/researchReading';
import { disagreements, randomTexts } from '../support/randomTexts';

/** What the activities read a model's fenced answer with before. */
function formerModelJson(text: string): unknown {
  const fenced = /^\s*```(?:json)?\s*([\s\S]*?)\s*```\s*$/.exec(text);
  return JSON.parse(fenced ? fenced[1]! : text);
}

/** What research read a page's links with before. */
function formerLinks(markdown: string): { text: string; url: string }[] {
  const link = /(?<!!)\[([^\]\n]*)\]\((https?:\/\/[^\s)]+)(?:\s+"[^"\n]*")?\)/g;
  return [...markdown.matchAll(link)].map((match) => ({ text: match[1]!, url: match[2]! }));
}

describe('a model answer in a fence', () => {
  it('reads as the former pattern did', () => {
    const tokens = ['```', '`', 'json', 'js', ' ', '\n', '\t', '\u00a0', '{}', '1', '"a"', 'x'];
    expect(disagreements(randomTexts(tokens, 30_000), parseModelJson, formerModelJson)).toEqual([]);
  });

  it.each([
    ['a fence around 64 KiB of blank', () => '```' + ' '.repeat(65_536) + '```', 'SyntaxError'],
    ['an opened fence and 64 KiB of blank', () => '```' + '\t'.repeat(65_536) + '{}', 'SyntaxError'],
    ['64 KiB of blank then a fence', () => ' '.repeat(65_536) + '```json\n[1]\n```', [1]],
  ])('reads %s', (_name, text, expected) => {
    expect(safely(() => parseModelJson(text()))).toEqual(expected);
  });
});

describe("a research page's links", () => {
  it('are those the former pattern found', () => {
    const tokens = [
      '[',
      ']',
      '(',
      ')',
      '!',
      'https://a',
      'http://b',
      'https://c#f',
      'http:/',
      ' ',
      '\n',
      '"',
      't',
      ' "t"',
      ')',
    ];
    const texts = randomTexts(tokens, 30_000, 14);
    // As the reading keeps them: each address once, without its fragment, its text trimmed.
    const kept = (links: { text: string; url: string }[]) => {
      const seen = new Set<string>();
      return links
        .map((link) => ({ url: link.url.split('#')[0]!, text: link.text.trim() }))
        .filter((link) => !seen.has(link.url) && seen.add(link.url))
        .slice(0, 40);
    };
    expect(disagreements(texts, linksOf, (text) => kept(formerLinks(text)))).toEqual([]);
  });

  it.each([
    ['`[` and blank, 64 KiB of it', () => '[\t'.repeat(32_768), 0],
    ['links left open, 64 KiB of them', () => '[a](http://x'.repeat(5_462) + ' '.repeat(4_096), 0],
    ['open titles, 64 KiB of them', () => '[a](http://x "t'.repeat(4_096) + ')', 0],
    ['one link after 64 KiB of `[`', () => '['.repeat(65_536) + '\n[a](https://x.test/)', 1],
  ])('reads a page of %s', (_name, markdown, count) => {
    expect(linksOf(markdown())).toHaveLength(count);
  });
});

function safely(read: () => unknown): unknown {
  try {
    return read();
  } catch (err) {
    return err instanceof Error ? err.name : 'thrown';
  }
}
