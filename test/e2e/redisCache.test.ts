import net from 'node:net';
import { RedisCache } from '../../src/cache/redisCache';
import { markdownCacheKey } from '../../src/cache/resultCache';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { freePort } from '../../src/stack/devServer';

/**
 * A real Redis server on loopback, as several hosts would share it.
 *
 * @stack own
 */
let redis: Child | undefined;
let url: string;

/** A bare TCP connection: a client that keeps reconnecting would outlive a failed start. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.once('connect', () => done(true)).once('error', () => done(false));
  });
}

beforeAll(async () => {
  const port = await freePort();
  redis = spawnChild(
    'redis-server',
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { onLine: () => undefined },
  );
  url = `redis://127.0.0.1:${port}`;
  await waitUntil('it accepts connections', redis, () => accepts(port), 10_000);
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
