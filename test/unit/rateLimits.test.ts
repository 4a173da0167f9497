import { RequestCounter } from '../../src/limits/requestCounter';
import { sourceOf } from '../../src/limits/rateLimits';
import { streamSlots } from '../../src/limits/streamSlots';

describe('sourceOf', () => {
  it('counts an IPv4 address alone, however it arrives', () => {
    expect(sourceOf('203.0.113.7')).toBe('203.0.113.7');
    expect(sourceOf('::ffff:203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv6 address by its /64, which one subscriber holds whole', () => {
    expect(sourceOf('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8:1:2:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(sourceOf('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
  });
});

describe('the limits of one API process without a shared store', () => {
  it('counts requests per key up to their limit, with the figures for the headers', async () => {
    const counter = new RequestCounter({ kind: 'memory' }, 'requests');
    const counts = [];
    for (let i = 0; i < 4; i++) counts.push(await counter.count('org', 3));
    expect(counts.map((count) => [count.allowed, count.remaining])).toEqual([
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(counts[3]!.resetMs).toBeGreaterThan(59_000);
    expect((await counter.count('other-org', 3)).remaining).toBe(2);
  });

  it('hands out stream slots up to the limit and takes back released and lapsed ones', async () => {
    const slots = streamSlots({ kind: 'memory' });
    expect(await slots.take('org', 'a', 2, 60_000)).toBe(true);
    expect(await slots.take('org', 'b', 2, 30)).toBe(true);
    expect(await slots.take('org', 'c', 2, 60_000)).toBe(false);
    await slots.release('org', 'a');
    expect(await slots.take('org', 'd', 2, 60_000)).toBe(true);
    // Past b's 30 ms lease, which is what lets e in.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await slots.take('org', 'e', 2, 60_000)).toBe(true);
    expect(await slots.take('org', 'f', 2, 60_000)).toBe(false);
  });
});
