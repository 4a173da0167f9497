import { readInt, type Env } from './envReaders';

/**
 * Rate limits: the defaults of an organization that the store sets none for (`npm run admin --
 * limits set`), and the limit on failed authentications. Its own reader, so the config loader calls
 * it with one line.
 */
export interface RateLimitSettings {
  /** Requests an organization may make in a minute. */
  requestsPerMinute: number;
  /** Research and automate runs an organization may have in flight at once. */
  concurrentStreams: number;
  /** Requests with a missing or unknown key that one source address may make in a minute. */
  authFailuresPerMinute: number;
}

const MAX_LIMIT = 1_000_000;

export function readRateLimits(env: Env): RateLimitSettings {
  return {
    requestsPerMinute: readInt(env, 'RATE_LIMIT_PER_MINUTE', 600, 1, MAX_LIMIT),
    concurrentStreams: readInt(env, 'RATE_LIMIT_STREAMS', 10, 1, MAX_LIMIT),
    authFailuresPerMinute: readInt(env, 'AUTH_FAILURES_PER_MINUTE', 30, 1, MAX_LIMIT),
  };
}
