import { regexLiterals, worstCaseGrowth } from '../support/linearPatterns';

/**
 * Every regular expression in src/ runs in time linear in its input on V8's backtracking engine:
 * one hostile body, page, model answer or search result cannot hold a process that serves every
 * organization. Bounded by operations, not by the clock: recheck finds how the worst-case number
 * of backtracking steps grows, and names the input that shows it.
 */
const PATTERNS = regexLiterals('src');

/**
 * Known super-linear patterns not yet rewritten, each named in docs/security.md with its bound.
 * Keyed by file and source, so a new pattern anywhere fails the suite.
 */
const NOT_YET_LINEAR = new Set([
  "src/tools/divergence.ts /^(.+?) of \\w+ event '(.*)' does not match .* command '(.*)'$/s",
]);

const key = (pattern: { site: string; source: string; flags: string }) =>
  `${pattern.site.replace(/:\d+$/, '')} /${pattern.source}/${pattern.flags}`;

it('finds the patterns to check', () => {
  expect(PATTERNS.length).toBeGreaterThan(200);
});

it('lists as not yet linear only patterns that are still there', () => {
  const present = new Set(PATTERNS.map(key));
  expect([...NOT_YET_LINEAR].filter((pattern) => !present.has(pattern))).toEqual([]);
});

it.each(PATTERNS.filter((pattern) => !NOT_YET_LINEAR.has(key(pattern))).map((pattern) => [pattern.site, pattern]))(
  'runs %s in linear time',
  (_site, pattern) => {
    const shown = `/${pattern.source}/${pattern.flags}`;
    expect({ pattern: shown, growth: worstCaseGrowth(pattern) }).toEqual({ pattern: shown, growth: 'linear' });
  },
);
