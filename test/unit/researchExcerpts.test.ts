import { rankedExcerpts } from '../../src/research/excerpts';

const budget = { totalChars: 1_000, chunkChars: 200, perPage: 2 };

describe('rankedExcerpts', () => {
  it("keeps each page's passages on the research terms, in the page's order, within the budget", () => {
    const filler = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} is about gardens and weather.`);
    const page = [
      ...filler.slice(0, 10),
      'Later the harbour got a lighthouse.',
      ...filler.slice(10),
      'The harbour was dredged in 1851.',
    ];
    const excerpts = rankedExcerpts(
      [
        { id: 1, content: page.join('\n\n') },
        { id: 2, content: 'Nothing on the subject here.' },
      ],
      'When was the harbour dredged? harbour dredged',
      budget,
    );
    const first = excerpts.get(1)!;
    expect(first).toHaveLength(2);
    expect(first[0]).toContain('lighthouse');
    expect(first[1]).toContain('dredged in 1851');
    // A page with no term of the research still gives the writer its best passage.
    expect(excerpts.get(2)).toEqual(['Nothing on the subject here.']);
    const all = [...excerpts.values()].flat();
    expect(all.every((text) => text.length <= budget.chunkChars)).toBe(true);
    expect(all.join('').length).toBeLessThanOrEqual(budget.totalChars);
  });

  it('cuts a page without paragraph breaks into chunks, and a hostile page cannot take the whole budget', () => {
    const wall = 'harbour '.repeat(100_000);
    const excerpts = rankedExcerpts(
      [
        { id: 1, content: wall },
        { id: 2, content: 'A harbour page.' },
      ],
      'harbour',
      budget,
    );
    expect(excerpts.get(1)!.map((text) => text.length)).toEqual([200, 200]);
    expect(excerpts.get(2)).toEqual(['A harbour page.']);
  });
});
