import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';

/**
 * How the API reads a run's events from its workflow (see EventLog): the messages and what
 * they carry. Imported by workflow code and by the API alike, so nothing here touches Node.
 */

/** One recorded event. `id` counts from 1 in the order the workflow recorded the events. */
export interface RecordedEvent {
  id: number;
  event: string;
  data: unknown;
}

export interface ReadRequest {
  /** The API process's reader of this run: one per run per process. */
  readerId: string;
  /** The last id the reader holds; the answer starts after it. 0 reads from the start. */
  after: number;
  /** How long the run may go on with no reader before it is cancelled (the API's setting). */
  graceMs: number;
}

export interface ReadResult {
  /** Events after the requested id, in order; at most one batch (see EventLog). */
  events: RecordedEvent[];
  /** The id of the last event recorded so far (0 when none). */
  headId: number;
  /** The run recorded its last event: once a reader holds `headId`, nothing follows. */
  closed: boolean;
  /** The run takes no more reads (their Updates are spent): ask it by query from now on. */
  readsSpent: boolean;
}

/** Why a run refuses a read once its reads are spent. */
export const READS_SPENT = 'this run takes no more reads: ask it by query';

/**
 * A long-poll read: answers as soon as there is an event after `after`, or the log closes,
 * or the reader is released. Accepted reads are recorded in history with their answer, so the
 * API keeps one reader per run per process and fans its events out in memory.
 */
export const readEventsUpdate = defineUpdate<ReadResult, [ReadRequest]>('webloom.events.read');

/** The same answer without waiting and without any history: for catching up, and after the run has closed. */
export const listEventsQuery = defineQuery<ReadResult, [{ after: number }]>('webloom.events.list');

/** A reader that has no more clients lets go, which starts the grace period if it was the last one. */
export const releaseReaderSignal = defineSignal<[{ readerId: string; graceMs: number }]>('webloom.events.release');
