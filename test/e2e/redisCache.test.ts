import { spawn, type ChildProcess } from 'node:child_process';
import { RedisCache } from '../../src/cache/redisCache';
import { markdownCacheKey } from '../../src/cache/resultCache';
import { freePort } from '../../src/stack/devServer';

/** A real Redis server on loopback, as several hosts would share it. */
let redis: ChildProcess;
let url: string;

beforeAll(async () => {
  const port = await freePort();
  redis = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  url = `redis://127.0.0.1:${port}`;
  const probe = new RedisCache(url, 1000);
  for (let attempt = 0; ; attempt++) {
    try {
      await probe.get('probe');
      break;
    } catch (err) {
      if (attempt > 50) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await probe.close();
});

afterAll(() => {
  redis.kill();
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
      await new Promise((resolve) => setTimeout(resolve, 600));
      expect(await hostB.get(key)).toBeUndefined();
    } finally {
      await hostA.close();
      await hostB.close();
    }
  });
});
