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
