import { declaresDiscussion, EXTRAS_HEADINGS } from '../../src/extraction/main/patterns';
import { withoutStrayCdata } from '../../src/extraction/parse';
import { commandMismatch } from '../../src/tools/divergence';
import { oneLine } from '../../src/extraction/markdownRules/oneLine';
import { needsBrowser } from '../../src/extraction/scriptShell';
import { splitSentences } from '../../src/research/citations';
import { urlsInQuery } from '../../src/research/queryUrls';
import { replaceTags } from '../../src/text/markup';
import { withoutTrailing } from '../../src/text/scan';
import { disagreements, randomTexts } from '../support/randomTexts';

/** Each hand scan or rewritten pattern agrees with the pattern it replaced on random texts. */
describe('linear rewrites', () => {
  const markup = [
    '<',
    '>',
    '/',
    'a',
    'B',
    '<script',
    '</script',
    '<svg>',
    '</SVG >',
    '<head',
    ' ',
    '\n',
    'x'.repeat(30),
  ];

  it('replace tags as /<[^>]*>/g did', () => {
    const texts = randomTexts(markup, 20_000);
    expect(
      disagreements(
        texts,
        (text) => replaceTags(text, ' '),
        (text) => text.replace(/<[^>]*>/g, ' '),
      ),
    ).toEqual([]);
    const opens = (text: string, at: number) => /[a-z]/i.test(text[text[at + 1] === '/' ? at + 2 : at + 1] ?? '');
    expect(
      disagreements(
        texts,
        (t) => replaceTags(t, ' ', opens),
        (t) => t.replace(/<\/?[a-z][^>]*>/gi, ' '),
      ),
    ).toEqual([]);
  });

  it('tell a script shell as the former patterns did', () => {
    const former = (html: string) => {
      if (!/<script\b/i.test(html)) return false;
      const visible = html
        .replace(/<(script|style|noscript|template|svg|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
        .replace(/<[^>]*>/g, ' ')
        .replace(/&[#\w]+;/g, ' ')
        .replace(/\s+/g, ' ')
        .trim();
      return visible.length < 250;
    };
    const texts = randomTexts([...markup, 'y'.repeat(200), '<script>', '</script>', '<style>'], 20_000, 16);
    expect(disagreements(texts, needsBrowser, former)).toEqual([]);
  });

  it('drop stray CDATA openers as the former pattern did', () => {
    const former = (html: string) =>
      html.replace(
        /(<script\b[\s\S]*?<\/script\s*>|<style\b[\s\S]*?<\/style\s*>)|<!\[CDATA\[[^>]*>/gi,
        (_match, raw: string | undefined) => raw ?? '',
      );
    const tokens = [
      '<![CDATA[',
      '<![cdata[',
      '>',
      '<script>',
      '<SCRIPT ',
      '</script>',
      '</style >',
      '<style',
      'x',
      ' ',
    ];
    expect(disagreements(randomTexts(tokens, 20_000), withoutStrayCdata, former)).toEqual([]);
    expect(withoutStrayCdata('<script>'.repeat(16_384) + '<![CDATA[ x >')).toBe('<script>'.repeat(16_384));
  });

  it('cut sentences as the former pattern did', () => {
    const former = (line: string) => line.split(/(?<=[.!?](?:\[\d[^\]]*\])*)\s+(?=[A-Z0-9"“(])/);
    const tokens = ['.', '!', '[', ']', '1', '[2]', ' ', '\t', 'A', 'a', '"', '(', '[x'];
    expect(disagreements(randomTexts(tokens, 30_000, 14), splitSentences, former)).toEqual([]);
    expect(splitSentences(`]${'!][0'.repeat(16_384)}] A`).length).toBe(1);
    expect(splitSentences(`${'.[1]'.repeat(16_384)} A`).length).toBe(2);
  });

  it('tell a discussion in JSON-LD as the former pattern did', () => {
    const former = /"@type"\s*:\s*(\[[^\]]*)?"(https?:\/\/schema\.org\/)?(DiscussionForumPosting|QAPage)"/;
    const tokens = ['"@type"', ':', ' ', '[', ']', '"', '"QAPage"', 'QAPage', '"https://schema.org/', ',', 'x'];
    expect(disagreements(randomTexts(tokens, 30_000, 10), declaresDiscussion, (t) => former.test(t))).toEqual([]);
    expect(declaresDiscussion(`${'"@type":['.repeat(7_281)}"QAPage"`)).toBe(true);
  });

  it('read a command mismatch as the former pattern did', () => {
    const former = (text: string) =>
      /^(.+?) of \w+ event '(.*)' does not match .* command '(.*)'$/s.exec(text)?.slice(0, 4);
    const tokens = ['a', ' of ', " of x event '", 'x', "'", "' does not match ", " command '", ' ', '\n'];
    const texts = randomTexts(tokens, 30_000, 10);
    expect(texts.filter((text) => former(text)).length).toBeGreaterThan(100);
    expect(disagreements(texts, commandMismatch, former)).toEqual([]);
  });

  it('put Markdown on one line as /\\s*\\n+\\s*/g did', () => {
    const texts = randomTexts([' ', '\n', '\t', '\u00a0', 'a', 'b'], 20_000);
    expect(disagreements(texts, oneLine, (text) => text.trim().replace(/\s*\n+\s*/g, ' '))).toEqual([]);
  });

  it('end a list item with one line break as /\\n+$/ did', () => {
    const texts = randomTexts(['\n', 'a', ' '], 20_000);
    expect(
      disagreements(
        texts,
        (t) => t.replace(/(?<!\n)\n+$/, '\n'),
        (t) => t.replace(/\n+$/, '\n'),
      ),
    ).toEqual([]);
  });

  it('tell extras headings as before', () => {
    const former = new RegExp(EXTRAS_HEADINGS.source.replace('(?:\\d+\\s*)?', '\\d*\\s*'), 'i');
    const texts = randomTexts([' ', '-', '1', '2', 'top ', 'rated ', 'comments', 'replies', 'x', '\t'], 20_000, 8);
    expect(former.source).not.toBe(EXTRAS_HEADINGS.source);
    expect(
      disagreements(
        texts,
        (text) => EXTRAS_HEADINGS.test(text),
        (text) => former.test(text),
      ),
    ).toEqual([]);
  });

  it('drop trailing punctuation as /[.,;:!?]+$/ did', () => {
    const texts = randomTexts(['.', ',', '!', 'a', ' ', '?'], 20_000);
    expect(
      disagreements(
        texts,
        (t) => withoutTrailing(t, '.,;:!?'),
        (t) => t.replace(/[.,;:!?]+$/, ''),
      ),
    ).toEqual([]);
    expect(urlsInQuery(`see https://a.test/x${'!'.repeat(65_536)}`)).toEqual(['https://a.test/x']);
  });

  it('read 64 KiB of hostile text', () => {
    expect(replaceTags('<'.repeat(65_536), ' ')).toHaveLength(65_536);
    expect(needsBrowser(`<script>${'<svg'.repeat(16_384)}`)).toBe(false);
    expect(oneLine(`a${'\t'.repeat(65_536)}b`)).toHaveLength(65_538);
  });
});
