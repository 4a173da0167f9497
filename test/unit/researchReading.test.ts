import { linksOf, researchReadingOf } from '../../src/reading/researchReading';

describe('research reading', () => {
  it('keeps the links of the main content: absolute, once each, no images, not the page itself', () => {
    const markdown = [
      'See [the survey](https://a.example/survey "Survey") and [**its data**](https://a.example/data#table).',
      '![chart](https://a.example/chart.png) [again](https://a.example/survey#top) [self](https://a.example/page#intro)',
      '[relative](/about) [mail](mailto:x@a.example)',
    ].join('\n\n');
    expect(linksOf(markdown, 'https://a.example/page')).toEqual([
      { url: 'https://a.example/survey', text: 'the survey' },
      { url: 'https://a.example/data', text: 'its data' },
    ]);
  });

  it('cuts the text at a paragraph within the token budget', () => {
    const paragraph = 'word '.repeat(100).trim();
    const reading = researchReadingOf(
      { content: Array.from({ length: 10 }, () => paragraph).join('\n\n'), metadata: { title: 'T' } },
      300,
      'https://a.example/',
    );
    expect(reading.content.length).toBeLessThanOrEqual(1200);
    expect(reading.content.endsWith('word')).toBe(true);
    expect(reading.metadata).toEqual({ title: 'T' });
  });
});
