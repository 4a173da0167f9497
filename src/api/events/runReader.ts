import { setTimeout as sleep } from 'node:timers/promises';
import { newUlid } from '../../ids';
import type { Client, WorkflowExecutionStatusName } from '@temporalio/client';
import type { Histogram } from 'prom-client';
import {
  listEventsQuery,
  readEventsUpdate,
  releaseReaderSignal,
  type ReadResult,
  type RecordedEvent,
} from '../../events/messages';
import type { AnyStreamedOperation, StreamFailure } from '../../events/streams';
import { runFields, type Logger } from '../../telemetry/logger';

/** Events this process keeps per run for its clients; a client further behind catches up by query. */
const BUFFER_CHARS = 8 * 1024 * 1024;
/** How long a running run may refuse reads with nothing new to query before the stream ends with an error event. */
const RETRY_BUDGET_MS = 30_000;
/** Pause before reading again after a run refused a read. */
const REREAD_DELAY_MS = 20;
/** How often a run whose reads are spent is asked by query: each event comes at most this late. */
const QUERY_POLL_MS = 500;

/** Why a run that ended without closing its stream ended, as the caller sees it. */
const ENDED: Partial<Record<WorkflowExecutionStatusName, StreamFailure>> = {
  CANCELLED: { code: 'cancelled', message: 'the run was cancelled' },
  TERMINATED: { code: 'terminated', message: 'the run was terminated' },
  TIMED_OUT: { code: 'timed_out', message: 'the run timed out' },
};
const ENDED_OTHERWISE: StreamFailure = { code: 'internal', message: 'the run ended without finishing its stream' };
export const READ_FAILED: StreamFailure = { code: 'stream_failed', message: 'the event stream failed' };

/**
 * Times events from the workflow recording them (every payload's `timestamp`) to now, those
 * recorded since `since` only: an old run's events read again are no measure of the relay.
 */
export function timeRelay(
  histogram: Histogram<'stage'> | undefined,
  stage: 'read' | 'sent',
  events: RecordedEvent[],
  since: number,
): void {
  if (!histogram) return;
  const now = Date.now();
  for (const { data } of events) {
    const recordedAt = (data as { timestamp?: unknown }).timestamp;
    // The workflow's clock (the server's, at its task's start) may run ahead of ours: that is no negative relay.
    if (typeof recordedAt === 'number' && recordedAt >= since)
      histogram.observe({ stage }, Math.max(0, now - recordedAt) / 1000);
  }
}

/** Wakes everyone waiting for the next change. */
class Changes {
  private waiters: (() => void)[] = [];

  next(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/**
 * Reads one run's events from its workflow, once for this whole process: long-poll reads, one
 * after the other, from the last id held. Its clients (subscriptions) take the events from
 * its buffer. When the run ends without its own last event (terminated, timed out) or its reads
 * keep failing while Temporal answers, the reader ends the stream with the operation's failure
 * event; while Temporal is unreachable, it waits.
 */
export class RunReader {
  readonly id = newUlid();
  subscribers = 0;
  private readonly buffer: RecordedEvent[] = [];
  /** JSON length of each buffered event's data. */
  private readonly sizes: number[] = [];
  private bufferChars = 0;
  /** The last id held. */
  private head: number;
  /** Set once nothing more will come: the failure event that ends the stream, or null when the run closed it. */
  private final?: RecordedEvent | null;
  private stopped = false;
  /** The run takes no more reads (see EventLog): it is asked by query instead. */
  private byQuery = false;
  private readonly changes = new Changes();
  private readonly startedAt = Date.now();
  /** Every line names the run. */
  readonly log: Logger;

  constructor(
    private readonly client: Client,
    readonly workflowId: string,
    private readonly operation: AnyStreamedOperation,
    after: number,
    private readonly graceMs: number,
    logger: Logger,
    private readonly relayed?: Histogram<'stage'>,
  ) {
    this.head = after;
    this.log = logger.child(runFields(workflowId));
  }

  start(): void {
    void this.readAll();
  }

  /** Lets the run go: no client of this process reads it any more, so its grace period may start. */
  stop(): void {
    this.stopped = true;
    if (this.final !== undefined) return;
    this.client.workflow
      .getHandle(this.workflowId)
      .signal(releaseReaderSignal, { readerId: this.id, graceMs: this.graceMs })
      .catch((err: unknown) => this.log.debug({ err }, 'releasing a reader failed'));
  }

  /** Whether the stream has ended, and with which failure event (null: the run closed it). */
  get ending(): RecordedEvent | null | undefined {
    return this.final;
  }

  changed(): Promise<void> {
    return this.changes.next();
  }

  /** The first id this reader's buffer holds. */
  firstHeldId(): number {
    return this.buffer[0]?.id ?? this.head + 1;
  }

  /** The held events after `after`; undefined when some of them are older than the buffer. */
  heldAfter(after: number): RecordedEvent[] | undefined {
    if (after + 1 < this.firstHeldId()) return undefined;
    return this.buffer.slice(Math.max(0, after + 1 - this.firstHeldId()));
  }

  /** Events with ids in (after, before), by query. */
  async range(after: number, before: number): Promise<RecordedEvent[]> {
    const found: RecordedEvent[] = [];
    let cursor = after;
    while (cursor + 1 < before) {
      const page = await this.retrying(() =>
        this.client.workflow.getHandle(this.workflowId).query(listEventsQuery, { after: cursor }),
      );
      const events = page.events.filter((event) => event.id < before);
      if (events.length === 0) break;
      found.push(...events);
      cursor = events.at(-1)!.id;
    }
    return found;
  }

  private async readAll(): Promise<void> {
    try {
      while (!this.stopped) {
        const result = await this.read();
        if (result === 'ended') return;
        const first = result.events[0];
        if (first && first.id > this.head + 1) this.hold(await this.range(this.head, first.id));
        this.hold(result.events.filter((event) => event.id > this.head));
        if (result.closed && this.head >= result.headId) return this.finish(null);
      }
    } catch (err) {
      this.log.error({ err }, 'reading run events failed');
      this.finish(READ_FAILED);
    }
  }

  /**
   * The next answer from the run: a long-poll read, or, when the run refuses reads, what it holds
   * by query; once its reads are spent, by query only.
   */
  private async read(): Promise<ReadResult | 'ended'> {
    let deadline = Date.now() + RETRY_BUDGET_MS;
    for (;;) {
      if (this.byQuery) return this.polled();
      try {
        const result = await this.client.workflow
          .getHandle(this.workflowId)
          .executeUpdate(readEventsUpdate, { args: [{ readerId: this.id, after: this.head, graceMs: this.graceMs }] });
        this.byQuery = result.readsSpent;
        return result;
      } catch (err) {
        if (this.stopped) return 'ended';
        // A closed run takes no reads, nor one whose reads are spent; a query answers either.
        this.log.debug({ err }, 'read refused; asking by query');
        const held = await this.held();
        this.byQuery = held.readsSpent;
        if (held.events.length > 0 || held.closed) return held;
        if (await this.endedOtherwise()) return 'ended';
        // Temporal has answered again: an outage spends none of the budget for refused reads. An
        // overloaded or unreachable server is asked again at the query pace, not every few ms.
        const transient = isTransient(err);
        if (transient) deadline = Date.now() + RETRY_BUDGET_MS;
        if (Date.now() > deadline && !this.byQuery) throw err;
        await sleep(transient ? QUERY_POLL_MS : REREAD_DELAY_MS);
      }
    }
  }

  /** The next answer by query, asked every QUERY_POLL_MS until there is one or the run has ended. */
  private async polled(): Promise<ReadResult | 'ended'> {
    for (;;) {
      const held = await this.held();
      if (held.events.length > 0 || held.closed) return held;
      if (this.stopped || (await this.endedOtherwise())) return 'ended';
      await sleep(QUERY_POLL_MS);
    }
  }

  private held(): Promise<ReadResult> {
    return this.retrying(() =>
      this.client.workflow.getHandle(this.workflowId).query(listEventsQuery, { after: this.head }),
    );
  }

  /** Whether the run ended without closing its stream (terminated, timed out); the stream then ends. */
  private async endedOtherwise(): Promise<boolean> {
    const { status } = await this.retrying(() => this.client.workflow.getHandle(this.workflowId).describe());
    if (status.name === 'RUNNING') return false;
    this.finish(ENDED[status.name] ?? ENDED_OTHERWISE);
    return true;
  }

  /**
   * Temporal calls, retried with backoff while it is unreachable, for as long as a client of this
   * process reads the run (keep-alives hold the stream open meanwhile). The run goes on through
   * the outage: ending the stream with an error event would tell the client that a run failed
   * which then completes, and is charged.
   */
  private async retrying<T>(call: () => Promise<T>): Promise<T> {
    for (let delay = 100; ; delay = Math.min(delay * 2, 2000)) {
      try {
        return await call();
      } catch (err) {
        if (this.stopped || !isTransient(err)) throw err;
        await sleep(delay);
      }
    }
  }

  private hold(events: RecordedEvent[]): void {
    if (events.length === 0) return;
    timeRelay(this.relayed, 'read', events, this.startedAt);
    for (const event of events) {
      const size = JSON.stringify(event.data).length;
      this.buffer.push(event);
      this.sizes.push(size);
      this.bufferChars += size;
    }
    this.head = events.at(-1)!.id;
    while (this.bufferChars > BUFFER_CHARS && this.buffer.length > 1) {
      this.buffer.shift();
      this.bufferChars -= this.sizes.shift()!;
    }
    this.changes.notify();
  }

  /** The operation's failure event, to end a stream with. */
  failureEvent(failure: StreamFailure, id: number): RecordedEvent {
    return { id, ...this.operation.failureEvent(failure, Date.now()) };
  }

  private finish(failure: StreamFailure | null): void {
    if (this.final !== undefined) return;
    // A run that ended takes no more ids; one this reader failed to read goes on, and its next
    // event takes the next id, so the failure takes the last one held: a client resuming from it
    // reads on from the same place.
    const id = failure === READ_FAILED ? this.head : this.head + 1;
    this.final = failure && this.failureEvent(failure, id);
    this.changes.notify();
  }
}

/** Errors worth retrying: Temporal unreachable or overloaded, not a refusal. */
function isTransient(err: unknown): boolean {
  const code = (err as { code?: unknown; cause?: { code?: unknown } }).cause?.code ?? (err as { code?: unknown }).code;
  // gRPC UNAVAILABLE, DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED, ABORTED.
  return code === 14 || code === 4 || code === 8 || code === 10 || (err as Error).name === 'ServiceError';
}
