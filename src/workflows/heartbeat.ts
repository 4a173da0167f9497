import type { Duration } from '@temporalio/common';

/**
 * A worker that stops heartbeating (its process died or hangs) loses the attempt after this long,
 * and the attempt is retried on whichever worker polls next, instead of after start-to-close.
 * Every activity that can run for long heartbeats: fetches, renders and model calls.
 */
export const HEARTBEAT_TIMEOUT: Duration = '10s';
