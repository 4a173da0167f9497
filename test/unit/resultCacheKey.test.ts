import { markdownCacheKey } from '../../src/cache/resultCache';

describe('markdownCacheKey', () => {
  it('keys by organization, URL, content, effort and country', () => {
    const base = { url: 'https://example.com/a', content: 'main', effort: 'standard' } as const;
    const keys = new Set([
      markdownCacheKey(base, 'org'),
      markdownCacheKey(base, 'other-org'),
      markdownCacheKey(base, ''),
      markdownCacheKey({ ...base, content: 'full' }, 'org'),
      markdownCacheKey({ ...base, effort: 'max' }, 'org'),
      markdownCacheKey({ ...base, geo_target: { country: 'DE' } }, 'org'),
      markdownCacheKey({ ...base, url: 'https://example.com/b' }, 'org'),
    ]);
    expect(keys.size).toBe(7);
    expect(markdownCacheKey({ ...base, geo_target: {} }, 'org')).toBe(markdownCacheKey(base, 'org'));
  });
});
