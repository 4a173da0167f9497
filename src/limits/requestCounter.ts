import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { LimitBackend } from './backend';

/** What a counted request learns: whether it is within its limit, and the figures for the headers. */
export interface Count {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Until the window ends and the count starts again. */
  resetMs: number;
}

const WINDOW_S = 60;

/**
 * Requests per key in fixed one-minute windows, counted in the backend every replica shares: one
 * round trip, an atomic increment (a Lua script in Redis, an upsert in PostgreSQL), by
 * rate-limiter-flexible. A key's limit may differ from call to call (an organization's own): the
 * library compares the shared count with a limiter's `points`, so there is one limiter per limit,
 * all counting in the same place.
 */
export class RequestCounter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();

  constructor(
    private readonly backend: LimitBackend,
    private readonly prefix: string,
  ) {}

  async count(key: string, limit: number): Promise<Count> {
    try {
      const res = await this.limiter(limit).consume(key);
      return { allowed: true, limit, remaining: res.remainingPoints, resetMs: res.msBeforeNext };
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      return { allowed: false, limit, remaining: 0, resetMs: err.msBeforeNext };
    }
  }

  private limiter(points: number): RateLimiterAbstract {
    let limiter = this.limiters.get(points);
    if (!limiter) {
      limiter = createLimiter(this.backend, this.prefix, points);
      this.limiters.set(points, limiter);
    }
    return limiter;
  }
}

function createLimiter(backend: LimitBackend, keyPrefix: string, points: number): RateLimiterAbstract {
  const options = { keyPrefix, points, duration: WINDOW_S };
  // While the shared store is out of reach each process counts on its own, rather than refusing or
  // holding every request.
  const insuranceLimiter = new RateLimiterMemory(options);
  switch (backend.kind) {
    case 'redis':
      return new RateLimiterRedis({
        ...options,
        storeClient: backend.client,
        useRedisPackage: true,
        rejectIfRedisNotReady: true,
        insuranceLimiter,
      });
    case 'postgres':
      return new RateLimiterPostgres({
        ...options,
        // Unnamed statements: the library names its prepared statements, and the embedded store
        // serves every connection in one session, where a second connection preparing the same
        // name fails ("prepared statement already exists").
        storeClient: { query: (q: { text: string; values?: unknown[] }) => backend.pool.query(q.text, q.values) },
        storeType: 'client',
        // Made by migrations/billing/0002_rate-limits.sql.
        tableName: 'rate_limits',
        tableCreated: true,
        insuranceLimiter,
      });
    case 'memory':
      return new RateLimiterMemory(options);
  }
}
