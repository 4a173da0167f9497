import type { Worker } from '@temporalio/worker';

/** The workers of one role in a process, and what to release once they have stopped. */
export interface RoleWorkers {
  workers: Worker[];
  close?: () => Promise<void>;
}
