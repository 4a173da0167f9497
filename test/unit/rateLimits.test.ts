import type { Client } from '@temporalio/client';
import { requestRateLimit } from '../../src/api/middleware/rateLimit';
import { ORGANIZATION_LIMITS_CACHE_MS } from '../../src/config/timeouts';
import type { RateLimitedError } from '../../src/errors';
import { RequestCounter, type Count } from '../../src/limits/requestCounter';
import { RateLimits, sourceOf } from '../../src/limits/rateLimits';
import { createLogger } from '../../src/telemetry/logger';
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

describe('an organization past its requests per minute', () => {
  const settings = { requestsPerMinute: 2, concurrentStreams: 1, authFailuresPerMinute: 30 };

  /** The middleware's answers to `n` requests, and how many of them were counted. */
  async function send(limits: RateLimits, n: number): Promise<{ answers: (number | string)[]; counted: number }> {
    let counted = 0;
    const counting = {
      countRequest: (organization: string) => {
        counted++;
        return limits.countRequest(organization);
      },
      requestWindow: (organization: string) => limits.requestWindow(organization),
      refusalOf: (organization: string) => limits.refusalOf(organization),
      noteCount: (organization: string, count: Count) => limits.noteCount(organization, count),
    };
    const middleware = requestRateLimit(counting);
    const answers: (number | string)[] = [];
    for (let i = 0; i < n; i++) {
      const headers: Record<string, string> = {};
      const ctx = { state: { organization: 'org' }, set: (name: string, value: string) => (headers[name] = value) };
      try {
        await middleware(ctx as unknown as Parameters<typeof middleware>[0], async () => undefined);
        answers.push(200);
      } catch (err) {
        answers.push(`${(err as RateLimitedError).status} remaining ${headers['x-ratelimit-remaining']}`);
      }
    }
    return { answers, counted };
  }

  /** The limits of an API process without a store, Redis or Temporal (none of which these need). */
  const inMemory = () =>
    new RateLimits(settings, { kind: 'memory' }, undefined, {} as Client, createLogger('silent', 'test'));

  afterEach(() => jest.useRealTimers());

  it('is refused without a count while the count that refused it is trusted, then counted again', async () => {
    jest.useFakeTimers({ now: Date.UTC(2026, 10, 27, 12, 0, 10), doNotFake: ['nextTick', 'setImmediate'] });
    const limits = inMemory();
    expect(await send(limits, 5)).toEqual({
      answers: [200, 200, '429 remaining 0', '429 remaining 0', '429 remaining 0'],
      counted: 3,
    });
    expect(limits.refusalOf('other-org')).toBeUndefined();
    // As long as the organization's limits are trusted: a raised one takes effect as soon.
    jest.setSystemTime(Date.now() + ORGANIZATION_LIMITS_CACHE_MS);
    expect(await send(limits, 2)).toEqual({ answers: ['429 remaining 0', '429 remaining 0'], counted: 1 });
    await limits.close();
  });

  it('is remembered no longer than its window lasts', () => {
    const limits = inMemory();
    limits.noteCount('org', { allowed: true, limit: 2, remaining: 0, resetMs: 30_000 });
    expect(limits.refusalOf('org')).toBeUndefined();
    limits.noteCount('org', { allowed: false, limit: 2, remaining: 0, resetMs: 0 });
    expect(limits.refusalOf('org')).toBeUndefined();
    limits.noteCount('org', { allowed: false, limit: 2, remaining: 0, resetMs: 30_000 });
    expect(limits.refusalOf('org')).toMatchObject({ allowed: false, limit: 2, remaining: 0 });
    expect(limits.refusalOf('org')!.resetMs).toBeGreaterThan(29_000);
  });
});
