import { regexLiterals, worstCaseGrowth } from '../support/linearPatterns';

/**
 * Every regular expression in src/ runs in time linear in its input on V8's backtracking engine:
 * one hostile body, page, model answer or search result cannot hold a process that serves every
 * organization. Bounded by operations, not by the clock: recheck finds how the worst-case number
 * of backtracking steps grows, and names the input that shows it.
 */
const PATTERNS = regexLiterals('src');

it('finds the patterns to check', () => {
  expect(PATTERNS.length).toBeGreaterThan(200);
});

it.each(PATTERNS.map((pattern) => [pattern.site, pattern]))('runs %s in linear time', (_site, pattern) => {
  const shown = `/${pattern.source}/${pattern.flags}`;
  expect({ pattern: shown, growth: worstCaseGrowth(pattern) }).toEqual({ pattern: shown, growth: 'linear' });
});
