import {
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRedis,
  RateLimiterRes,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import { KeyedBatches } from '../billing/batches';
import type { LimitBackend } from './backend';

/** What a counted request learns: whether it is within its limit, and the figures for the headers. */
export interface Count {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Until the window ends and the count starts again. */
  resetMs: number;
}

/** A key's row of counts in the store, and the window and limit it is counted in. */
export interface RequestWindow {
  key: string;
  limit: number;
  windowMs: number;
}

const WINDOW_S = 60;

/** Requests counted by one statement at most. */
const MAX_BATCH = 500;

/**
 * Requests per key in fixed one-minute windows, counted in the backend every replica shares: an
 * atomic increment (a Lua script in Redis, an upsert in PostgreSQL), by rate-limiter-flexible. A
 * key's limit may differ from call to call (an organization's own): the library compares the
 * shared count with a limiter's `points`, so there is one limiter per limit, all counting in the
 * same place. Requests of a key that arrive while its count is out are counted together by the
 * next increment, of as many points as they are (see KeyedBatches).
 */
export class RequestCounter {
  private readonly limiters = new Map<number, RateLimiterAbstract>();
  private readonly batches = new KeyedBatches<{ key: string; limit: number }, Count>(
    (_, requests) => this.countAll(requests[0]!.key, requests[0]!.limit, requests.length),
    MAX_BATCH,
  );

  constructor(
    private readonly backend: LimitBackend,
    private readonly prefix: string,
  ) {}

  count(key: string, limit: number): Promise<Count> {
    return this.batches.add(`${limit}:${key}`, { key, limit });
  }

  /** Counts `requests` at once, each told its own figures (countsAfter). */
  private async countAll(key: string, limit: number, requests: number): Promise<Count[]> {
    let res: RateLimiterRes;
    try {
      res = await this.limiter(limit).consume(key, requests);
    } catch (err) {
      if (!(err instanceof RateLimiterRes)) throw err;
      res = err;
    }
    return countsAfter(res.consumedPoints, limit, requests, res.msBeforeNext);
  }

  /**
   * Where a key's requests are counted when that is the store, so that a statement of its own can
   * count one there with other work (migrations/billing/0007); undefined for Redis and memory.
   */
  window(key: string, limit: number): RequestWindow | undefined {
    if (this.backend.kind !== 'postgres') return undefined;
    // rate-limiter-flexible's key for it (its getKey).
    return { key: `${this.prefix}:${key}`, limit, windowMs: WINDOW_S * 1000 };
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

/**
 * What each of `requests` counted together is told: what it would have been told counted alone,
 * one after another, given the shared count after all of them. Exactly the limit of them, across
 * every replica, pass.
 */
export function countsAfter(counted: number, limit: number, requests: number, resetMs: number): Count[] {
  const before = counted - requests;
  return Array.from({ length: requests }, (_, i) => ({
    allowed: before + i + 1 <= limit,
    limit,
    remaining: Math.max(0, limit - (before + i + 1)),
    resetMs,
  }));
}
