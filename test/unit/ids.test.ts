import { decodeTime, isValid } from 'ulid';
import { newUlid } from '../../src/ids';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

describe('newUlid', () => {
  // 16 random characters an id, far past one pool of random bytes, so refills are crossed many times.
  const ids = Array.from({ length: 20_000 }, () => newUlid());

  it('makes valid ULIDs of this moment, every one distinct', () => {
    const started = Date.now();
    const id = newUlid();
    expect(isValid(id)).toBe(true);
    expect(decodeTime(id)).toBeGreaterThanOrEqual(started - 1);
    expect(ids.every(isValid)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('spreads the random part evenly over the alphabet', () => {
    const seen = new Map<string, number>();
    for (const id of ids) for (const char of id.slice(10)) seen.set(char, (seen.get(char) ?? 0) + 1);
    expect([...seen.keys()].sort().join('')).toBe(ALPHABET);
    const expected = (ids.length * 16) / ALPHABET.length;
    const chiSquare = [...seen.values()].reduce((sum, n) => sum + (n - expected) ** 2 / expected, 0);
    // 31 degrees of freedom: above 70 happens by chance about once in ten thousand runs.
    expect(chiSquare).toBeLessThan(70);
  });
});
