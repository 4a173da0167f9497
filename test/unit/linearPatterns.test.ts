import { regexLiterals, worstCaseGrowth } from '../support/linearPatterns';

/**
 * Every regular expression of the code that reads requests, pages and `data` (the API, the
 * browser workers, the automate classifier and firewall, the workflows) runs in time linear in
 * its input on V8's backtracking engine: one hostile body or page cannot hold a process that
 * serves every organization. Bounded by operations, not by the clock: recheck finds how the
 * worst-case number of backtracking steps grows, and names the input that shows it.
 */
const PATTERNS = regexLiterals('src/api', 'src/automate', 'src/browser', 'src/workflows');

it('finds the patterns to check', () => {
  expect(PATTERNS.length).toBeGreaterThan(50);
});

it.each(PATTERNS.map((pattern) => [pattern.site, pattern]))('runs %s in linear time', (_site, pattern) => {
  const shown = `/${pattern.source}/${pattern.flags}`;
  expect({ pattern: shown, growth: worstCaseGrowth(pattern) }).toEqual({ pattern: shown, growth: 'linear' });
});
