import type { Pool } from 'pg';
import { createClient } from 'redis';

export type RedisClient = ReturnType<typeof createClient>;

/**
 * Where the counts every API replica shares live: Redis when REDIS_URL is set, else the store's
 * PostgreSQL (a server or the embedded one), else this process alone (no DATABASE_URL: one API).
 */
export type LimitBackend =
  { kind: 'redis'; client: RedisClient } | { kind: 'postgres'; pool: Pool } | { kind: 'memory' };

export function limitBackend(redisUrl: string | undefined, pool: Pool | undefined): LimitBackend {
  if (redisUrl) {
    // Without an offline queue a command fails at once while Redis is away, rather than holding the
    // request; the counters then fall back to this process's own (see requestCounter.ts).
    const client = createClient({ url: redisUrl, disableOfflineQueue: true });
    // Errors surface on the next command; without a listener node-redis would crash the process.
    client.on('error', () => undefined);
    // The HTTP server keeps an API process alive; an app built in a test process must not be kept by this.
    client.unref();
    // node-redis reconnects by itself after a first connection that failed.
    client.connect().catch(() => undefined);
    return { kind: 'redis', client };
  }
  return pool ? { kind: 'postgres', pool } : { kind: 'memory' };
}

export async function closeBackend(backend: LimitBackend): Promise<void> {
  if (backend.kind === 'redis') await backend.client.close().catch(() => undefined);
}
