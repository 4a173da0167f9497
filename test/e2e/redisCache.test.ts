import { RedisCache } from '../../src/cache/redisCache';
import { markdownCacheKey } from '../../src/cache/resultCache';
import { startRedisServer, type RedisServer } from '../support/redisServer';

/**
 * A real Redis server on loopback, as several hosts would share it.
 *
 * @stack own
 */
let redis: RedisServer | undefined;
let url: string;

beforeAll(async () => {
  redis = await startRedisServer();
  url = redis.url;
});

afterAll(async () => {
  await redis?.stop();
});

describe('RedisCache', () => {
  it('shares entries between hosts and expires them after the TTL', async () => {
    const hostA = new RedisCache(url, 400);
    const hostB = new RedisCache(url, 400);
    try {
      const key = markdownCacheKey({ url: 'https://example.com/a', content: 'main', effort: 'standard' }, 'org');
      expect(await hostB.get(key)).toBeUndefined();
      const page = { markdown: '# A', metadata: { title: 'A' }, storedAt: Date.now() };
      await hostA.set(key, page);
      expect(await hostB.get(key)).toEqual(page);
      // Past the 400 ms TTL is the point: the entry must be gone then, and nothing marks the moment.
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await hostB.get(key)).toBeUndefined();
    } finally {
      await hostA.close();
      await hostB.close();
    }
  });
});
