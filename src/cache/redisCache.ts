import { createClient } from 'redis';
import type { CachedPage, ResultCache } from './resultCache';

type RedisClient = ReturnType<typeof createClient>;

/**
 * The multi-host store: Redis, which every API and worker host can reach, expiring entries
 * itself (PX), so nothing needs pruning. Chosen because it is the common shared cache of
 * self-hosted stacks, and node-redis is its maintained official client.
 */
export class RedisCache implements ResultCache {
  private client: Promise<RedisClient> | undefined;

  constructor(
    private readonly url: string,
    private readonly ttlMs: number,
    private readonly prefix = 'webloom:cache:',
  ) {}

  private connect(): Promise<RedisClient> {
    if (!this.client) {
      const client = createClient({ url: this.url });
      // Errors surface on the next command; without a listener node-redis would crash the process.
      client.on('error', () => undefined);
      this.client = client.connect().catch((err: unknown) => {
        this.client = undefined;
        throw err;
      });
    }
    return this.client;
  }

  async get(key: string): Promise<CachedPage | undefined> {
    const value = await (await this.connect()).get(this.prefix + key);
    return value ? (JSON.parse(value) as CachedPage) : undefined;
  }

  async set(key: string, page: CachedPage): Promise<void> {
    await (await this.connect()).set(this.prefix + key, JSON.stringify(page), { PX: this.ttlMs });
  }

  async close(): Promise<void> {
    const client = await this.client?.catch(() => undefined);
    this.client = undefined;
    await client?.quit();
  }
}
