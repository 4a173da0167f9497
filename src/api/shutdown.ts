import type http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../telemetry/logger';
import type { ApiDeps } from './deps';

/** How often connections that went idle while draining are closed. */
const SWEEP_MS = 100;

/**
 * Stops the API without dropping what it can finish: /ready turns 503 so no new requests are
 * sent here, the port stops accepting connections, event streams end at once with a comment
 * saying where to resume (their runs wait for their clients as for any that went away), and
 * requests in flight get up to `graceMs` to be answered, each connection closed once idle.
 * Resolves true when every connection closed in time; the caller closes what is left.
 */
export async function drain(
  server: http.Server,
  deps: Pick<ApiDeps, 'readiness' | 'endStreams'>,
  graceMs: number,
  logger: Logger,
): Promise<boolean> {
  deps.readiness.drain();
  const closed = new Promise<true>((resolve) => server.close(() => resolve(true)));
  // Requests still arriving on open connections are answered, and their connections closed after.
  server.prependListener('request', (_req: http.IncomingMessage, res: http.ServerResponse) =>
    res.setHeader('connection', 'close'),
  );
  const streams = deps.endStreams();
  logger.info({ streams, graceMs }, 'API draining');
  server.closeIdleConnections();
  const sweep = setInterval(() => server.closeIdleConnections(), SWEEP_MS);
  const cancelTimer = new AbortController();
  try {
    return await Promise.race([closed, sleep(graceMs, false, { signal: cancelTimer.signal }).catch(() => false)]);
  } finally {
    clearInterval(sweep);
    cancelTimer.abort();
  }
}
