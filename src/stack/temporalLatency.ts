/**
 * Dynamic config values that take tens of milliseconds off every step of a run when one machine
 * (or a few) serves Temporal; README "Temporal settings for latency" explains them. Both the dev
 * server and the cluster topology's server run with them.
 */
export const LATENCY_DYNAMIC_CONFIG: Readonly<Record<string, number>> = {
  // One machine needs no task queue partitions; with the default four, a task can land in a
  // partition with no poller and wait to be forwarded, which adds tens of ms to every step.
  'matching.numTaskqueueReadPartitions': 1,
  'matching.numTaskqueueWritePartitions': 1,
  // With few history shards, the transfer queue is polled at most 20 times a second by default,
  // so each step of a run (task created -> task dispatched) waited ~40 ms for the next poll.
  'history.transferProcessorMaxPollRPS': 1000,
};

/**
 * SQLite pragmas for the dev server's file (`npm start`). SQLite's defaults (a rollback journal,
 * synced in full) sync the disk several times per transaction, and every step of a run is one:
 * a start and terminate of a run took 68 ms and 20 ms of the server's CPU, 8.6 ms and 8.5 ms with
 * these. A write-ahead log synced at checkpoints loses no transaction when a process dies, only
 * the last ones when the machine itself loses power.
 */
export const DEV_SERVER_SQLITE_PRAGMAS: readonly string[] = ['journal_mode=wal', 'synchronous=normal'];
