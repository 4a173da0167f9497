import { finalizeReport } from '../../src/research/citations';
import { domainOf, pageKey, urlsInQuery } from '../../src/research/queryUrls';
import { stopReasonAfter } from '../../src/research/stopRule';

const sources = [
  { id: 4, url: 'https://a.example/x', title: 'Page [A]' },
  { id: 7, url: 'https://b.example/y (z)', title: '' },
  { id: 9, url: 'https://c.example/never-cited', title: 'C' },
];

describe('finalizeReport', () => {
  it('keeps only citations of sources read, renumbered by first appearance, and appends no source list', () => {
    const draft =
      '# T\n\nFirst claim [7]. Second claim [4, 7][12].\n- A listed claim [4]\n\n[Docs](https://d.example) and [2024] stay.\n\n## References\n\n1. Invented';
    const { report, cited } = finalizeReport(draft, sources);
    expect(report).toBe(
      '# T\n\nFirst claim [1]. Second claim [1][2].\n- A listed claim [2]\n\n[Docs](https://d.example) and stay.',
    );
    expect(cited.map((entry) => [entry.number, entry.source.id, entry.claims])).toEqual([
      [1, 7, ['First claim.', 'Second claim.']],
      [2, 4, ['Second claim.', 'A listed claim']],
    ]);
  });

  it('numbers a marker citing several new sources in the order they are listed', () => {
    const { report, cited } = finalizeReport('Both [9, 4]. Then [7].', sources);
    expect(report).toBe('Both [1][2]. Then [3].');
    expect(cited.map((entry) => entry.source.id)).toEqual([9, 4, 7]);
  });

  it('drops nothing read and lists nothing when nothing read is cited', () => {
    expect(finalizeReport('Nothing cited [3].', sources)).toEqual({ report: 'Nothing cited.', cited: [] });
  });
});

describe('query helpers', () => {
  it('finds the URLs a query names, once each, without trailing punctuation', () => {
    expect(urlsInQuery('Compare https://a.example/x, https://b.example/y. And (https://a.example/x)!')).toEqual([
      'https://a.example/x',
      'https://b.example/y',
    ]);
    expect(
      urlsInQuery('What do http://[2001:db8::1]:8080/a and (http://[::ffff:1.2.3.4]) and http://[::1] say?'),
    ).toEqual(['http://[2001:db8::1]:8080/a', 'http://[::ffff:1.2.3.4]', 'http://[::1]']);
    expect(pageKey('https://a.example/x#part')).toBe('https://a.example/x');
    expect(domainOf('https://user@Sub.A.example:8080/path')).toBe('sub.a.example');
  });
});

describe('stopReasonAfter', () => {
  const evaluation = (
    coverage: 'Light' | 'Moderate' | 'Solid',
    shouldContinue: boolean,
    nextQueries: string[] = ['q'],
  ) => ({ coverage, shouldContinue, nextQueries });
  it('stops on Solid coverage or when nothing is worth searching, else when the rounds run out', () => {
    expect(stopReasonAfter(1, 3, evaluation('Solid', true))).toBe('coverage_sufficient');
    expect(stopReasonAfter(1, 3, evaluation('Light', false))).toBe('coverage_sufficient');
    expect(stopReasonAfter(1, 3, evaluation('Light', true, []))).toBe('coverage_sufficient');
    expect(stopReasonAfter(1, 3, evaluation('Moderate', true))).toBeUndefined();
    expect(stopReasonAfter(3, 3, evaluation('Moderate', false))).toBe('max_iterations');
    expect(stopReasonAfter(1, 1, evaluation('Light', true))).toBe('max_iterations');
  });
});
