/**
 * HTTP statuses after which the same request may succeed a moment later (a timeout, a conflict,
 * a rate limit, a server error): worth another attempt, for page fetches and model calls alike.
 */
export const TRANSIENT_STATUSES: ReadonlySet<number> = new Set([408, 409, 425, 429, 500, 502, 503, 504]);
