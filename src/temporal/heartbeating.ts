import { Context } from '@temporalio/activity';

/** The SDK sends at most one heartbeat per 80% of the heartbeat timeout, so asking often costs nothing. */
const HEARTBEAT_EVERY_MS = 1_000;

/**
 * Runs an activity's work while heartbeating. When the worker stops answering (its process died
 * or hangs), the server gives up on the attempt after the heartbeat timeout and retries it on
 * whichever worker polls next, rather than waiting out the whole start-to-close timeout.
 */
export async function heartbeating<T>(work: () => Promise<T>): Promise<T> {
  const context = Context.current();
  const timer = setInterval(() => context.heartbeat(), HEARTBEAT_EVERY_MS);
  try {
    return await work();
  } finally {
    clearInterval(timer);
  }
}
