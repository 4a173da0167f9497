import {
  allHandlersFinished,
  ApplicationFailure,
  CancellationScope,
  condition,
  isCancellation,
  setHandler,
  workflowInfo,
} from '@temporalio/workflow';
import { ERRORS, isErrorCode } from '../errors';
import {
  listEventsQuery,
  READS_SPENT,
  readEventsUpdate,
  releaseReaderSignal,
  type ReadRequest,
  type ReadResult,
  type RecordedEvent,
} from './messages';
import type { StreamedOperation, StreamFailure } from './streams';

/** One read's answer stays well under Temporal's payload limit (2 MB); a bigger event goes alone. */
const BATCH_CHARS = 256 * 1024;
/** An event must fit one answer: a report of a few hundred KB does, page texts must not ride here. */
const MAX_EVENT_CHARS = 1024 * 1024;
/**
 * Each accepted read is one Update, and the server takes 2,000 per run (`history.maxTotalUpdates`);
 * past this many, or once the server suggests continuing as new, readers read by query. The rest
 * stay for the run's own Updates (input answers: at most three per step).
 */
export const READ_BUDGET = 1500;

/**
 * The event stream of one workflow run, held by the workflow itself. Workflow code records
 * events in order with `emit`; the API reads them with a long-poll Update (`readEventsUpdate`)
 * and, to catch up or after the run has closed, a Query (`listEventsQuery`). Because the log is
 * workflow state, it is rebuilt on replay: nothing is lost when a worker or an API process
 * restarts, and a closed run can still be read (and inspected) within the namespace retention.
 *
 * It also watches its readers. An API process releases its reader when its last client goes;
 * if no reader comes back within the grace period, `run` cancels the work. A reader whose
 * process died never releases; it counts as gone once it has not read for the grace period.
 *
 * Create it first thing in the workflow function, so its handlers exist before any read arrives.
 */
export class EventLog<M extends object> {
  private readonly events: RecordedEvent[] = [];
  /** JSON length of each event's data, for batching. */
  private readonly sizes: number[] = [];
  private closed = false;
  private reads = 0;
  /**
   * The run takes no more reads: its readers read by query, which the log cannot see, so it no
   * longer cancels the run for want of readers.
   */
  private readsSpent = false;
  /** Reads in flight, by reader. */
  private readonly polling = new Map<string, number>();
  private readonly released = new Set<string>();
  private graceMs?: number;
  private lastReadEndedAt?: number;
  /** A reader let go and none has read since. */
  private releasedIdle = false;
  private abandoned = false;

  /** `readBudget` is lowered only by tests, beside a server whose Update limit they lowered. */
  constructor(
    private readonly operation: StreamedOperation<M>,
    private readonly readBudget = READ_BUDGET,
  ) {
    setHandler(readEventsUpdate, (request) => this.read(request), { validator: (request) => this.validate(request) });
    setHandler(listEventsQuery, ({ after }) => this.answer(after));
    setHandler(releaseReaderSignal, ({ readerId, graceMs }) => this.release(readerId, graceMs));
  }

  emit<E extends keyof M & string>(event: E, data: M[E]): void {
    if (this.closed) throw new Error(`event ${event} recorded after the stream ended`);
    const size = JSON.stringify(data).length;
    if (size > MAX_EVENT_CHARS) {
      throw ApplicationFailure.nonRetryable(
        `event ${event} is ${size} characters; at most ${MAX_EVENT_CHARS} fit`,
        'event_too_large',
      );
    }
    this.checkReads();
    this.noticeLostReaders();
    this.push(event, data, size);
  }

  /**
   * Runs the operation's work and ends the stream after it: closed when the work returns (its
   * last events recorded), or with the operation's failure event when it throws (unless it
   * recorded one itself). The work is cancelled when no reader comes back within the grace period.
   */
  async run<T>(work: () => Promise<T>): Promise<T> {
    const scope = new CancellationScope();
    // Rejects only when the whole run is cancelled, which ends the work anyway.
    this.watchReaders().then(
      () => scope.cancel(),
      () => undefined,
    );
    try {
      const result = await scope.run(work);
      this.closed = true;
      return result;
    } catch (err) {
      const failure: StreamFailure = this.abandoned
        ? { code: 'abandoned', message: `the run was cancelled: no client read its events for ${this.graceMs} ms` }
        : failureOf(err);
      this.end(failure);
      if (this.abandoned) throw ApplicationFailure.nonRetryable(failure.message, 'stream_abandoned');
      throw err;
    } finally {
      await CancellationScope.nonCancellable(() => condition(allHandlersFinished));
    }
  }

  /**
   * Notes when the run takes no more reads. Called in workflow tasks only: a query's activation
   * does not carry the server's suggestion, and a validator's changes would not replay.
   */
  private checkReads(): void {
    if (this.reads >= this.readBudget || workflowInfo().continueAsNewSuggested) this.readsSpent = true;
  }

  private push(event: string, data: unknown, size: number): void {
    this.events.push({ id: this.events.length + 1, event, data });
    this.sizes.push(size);
  }

  private end(failure: StreamFailure): void {
    if (this.closed) return;
    const { event, data } = this.operation.failureEvent(failure, Date.now());
    // An operation that recorded its own, more detailed failure event gets no second one.
    if (this.events.at(-1)?.event !== event) this.push(event, data, JSON.stringify(data).length);
    this.closed = true;
  }

  private validate(request: ReadRequest): void {
    if (this.readsSpent || this.reads >= this.readBudget || workflowInfo().continueAsNewSuggested)
      throw new Error(READS_SPENT);
    if (!Number.isSafeInteger(request.after) || request.after < 0) throw new Error('after must be a whole number');
    if (!Number.isSafeInteger(request.graceMs) || request.graceMs < 0)
      throw new Error('graceMs must be a whole number');
  }

  private async read(request: ReadRequest): Promise<ReadResult> {
    const { readerId, after } = request;
    this.reads++;
    this.checkReads();
    this.graceMs = request.graceMs;
    if (!this.released.has(readerId)) this.releasedIdle = false;
    this.polling.set(readerId, (this.polling.get(readerId) ?? 0) + 1);
    try {
      // Not cancellable: a cancelled run still answers its readers, with the failure event.
      await CancellationScope.nonCancellable(() =>
        condition(() => this.events.length > after || this.closed || this.released.has(readerId)),
      );
    } finally {
      const left = this.polling.get(readerId)! - 1;
      if (left > 0) this.polling.set(readerId, left);
      else this.polling.delete(readerId);
      if (this.polling.size === 0) this.lastReadEndedAt = Date.now();
    }
    return this.answer(after);
  }

  private answer(after: number): ReadResult {
    const events: RecordedEvent[] = [];
    let chars = 0;
    // Ids count from 1 with no gap, so the event after `after` sits at index `after`.
    for (let i = Math.max(0, after); i < this.events.length; i++) {
      if (events.length > 0 && chars + this.sizes[i]! > BATCH_CHARS) break;
      events.push(this.events[i]!);
      chars += this.sizes[i]!;
    }
    return {
      events,
      headId: this.events.length,
      closed: this.closed,
      readsSpent: this.readsSpent,
    };
  }

  private release(readerId: string, graceMs: number): void {
    this.graceMs = graceMs;
    this.released.add(readerId);
    this.releasedIdle = true;
  }

  /** Resolves when the run is abandoned: released by its last reader, and none came back in time. */
  private async watchReaders(): Promise<void> {
    for (;;) {
      await condition(() => this.abandoned || (this.releasedIdle && this.polling.size === 0 && !this.readsSpent));
      if (this.abandoned) return;
      const back = await condition(() => !this.releasedIdle || this.polling.size > 0 || this.readsSpent, this.graceMs!);
      if (!back) {
        this.abandoned = true;
        return;
      }
    }
  }

  /**
   * A reader re-reads within milliseconds of each answer. One that has not for the grace period
   * is gone (its process died without releasing it). Checked as events are recorded, so it
   * costs no timer; the run is then cancelled like an abandoned one.
   */
  private noticeLostReaders(): void {
    if (this.polling.size > 0 || this.graceMs === undefined || this.lastReadEndedAt === undefined) return;
    if (this.readsSpent) return;
    if (Date.now() - this.lastReadEndedAt > this.graceMs) this.abandoned = true;
  }
}

/** What a failure looks like on the stream: the spec's message for a known code, never internals. */
function failureOf(err: unknown): StreamFailure {
  if (isCancellation(err)) return { code: 'cancelled', message: 'the run was cancelled' };
  for (let cause: unknown = err; cause instanceof Error; cause = cause.cause) {
    if (cause instanceof ApplicationFailure && isErrorCode(cause.type))
      return { code: cause.type, message: ERRORS[cause.type].message };
  }
  return { code: 'internal', message: ERRORS.internal.message };
}
