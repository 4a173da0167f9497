import { checkNavigation, MAX_CHECKED_URL_CHARS } from '../../src/automate/firewall';
import type { FirewallPolicy } from '../../src/operations/automate';

/**
 * checkNavigation searches an address for every value the caller gave, on the browser worker
 * every organization shares: what a page or `data` can make it do is bounded.
 */
const policy = (protectedValues: string[], trustedHostnames: string[] = []): FirewallPolicy => ({
  enabled: true,
  trustedHostnames,
  protectedValues,
});

const VALUES = Array.from({ length: 2_000 }, (_, i) => `user${i}@example.org`);

describe('checkNavigation on hostile sizes', () => {
  it('checks an address against a 65,000-character value of two-byte characters', () => {
    const value = 'é'.repeat(65_000);
    expect(checkNavigation('https://example.com/search?q=harbour', policy([value]))).toEqual({ allowed: true });
    const carried = `https://example.com/?d=${Buffer.from(`x${'é'.repeat(20)}`).toString('base64')}`;
    expect(checkNavigation(carried, policy(['é'.repeat(20)])).allowed).toBe(false);
  });

  it(`searches addresses to untrusted hosts up to ${MAX_CHECKED_URL_CHARS} characters, refuses longer ones`, () => {
    const address = (length: number) => {
      const start = 'https://example.com/?q=';
      return start + 'a'.repeat(length - start.length);
    };
    expect(checkNavigation(address(MAX_CHECKED_URL_CHARS), policy(VALUES))).toEqual({ allowed: true });
    expect(checkNavigation(address(1_000_000), policy(VALUES))).toEqual({
      allowed: false,
      reason: expect.stringContaining(`longer than ${MAX_CHECKED_URL_CHARS} characters`),
    });
    expect(checkNavigation(address(1_000_000), policy([]))).toEqual({ allowed: true });
    expect(checkNavigation(address(1_000_000), policy(VALUES, ['example.com']))).toEqual({ allowed: true });
  });
});
