import type { Client } from '@temporalio/client';
import type { Histogram } from 'prom-client';
import type { RecordedEvent } from '../../events/messages';
import type { AnyStreamedOperation } from '../../events/streams';
import type { Logger } from '../../telemetry/logger';
import { READ_FAILED, RunReader } from './runReader';

/** One client's view of a run's events: from its own position, at its own pace. */
export class Subscription {
  private closed = false;
  /** Closed by the server (it is shutting down), not by the client: the client should resume elsewhere. */
  interrupted = false;
  /** The stream's last event has been handed out. */
  private ended = false;
  private wakeOnClose?: () => void;
  private readonly closing = new Promise<void>((resolve) => (this.wakeOnClose = resolve));

  constructor(
    private readonly reader: RunReader,
    private cursor: number,
    private readonly onClose: () => void,
  ) {}

  /**
   * The next events in order; undefined once the stream has ended (after its last event) or the
   * subscription closed.
   */
  async next(): Promise<RecordedEvent[] | undefined> {
    while (!this.closed && !this.ended) {
      let batch: RecordedEvent[];
      try {
        batch = this.reader.heldAfter(this.cursor) ?? (await this.reader.range(this.cursor, this.reader.firstHeldId()));
      } catch (err) {
        this.reader.log.error({ err }, 'catching up on run events failed');
        this.ended = true;
        // Its id is the last one delivered, so resuming from it reads on from the same place.
        return [this.reader.failureEvent(READ_FAILED, this.cursor)];
      }
      if (batch.length > 0) {
        this.cursor = batch.at(-1)!.id;
        return batch;
      }
      const ending = this.reader.ending;
      if (ending !== undefined) {
        this.ended = true;
        return ending ? [ending] : undefined;
      }
      await Promise.race([this.reader.changed(), this.closing]);
    }
    return undefined;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.wakeOnClose!();
    this.onClose();
  }

  /** Ends the subscription for the server's sake; events already handed out are still delivered. */
  interrupt(): void {
    this.interrupted = true;
    this.close();
  }
}

/**
 * Every run this API process streams: one reader per run, whatever the number of its clients
 * here, so a run's events are read from Temporal once per process and fanned out in memory.
 * A reader goes when its last client does, which lets the run's grace period start.
 */
export class EventRelay {
  private readonly readers = new Map<string, RunReader>();
  /** One per stream being served. */
  private readonly open = new Set<Subscription>();
  private draining = false;

  constructor(
    private readonly client: Client,
    private readonly graceMs: number,
    private readonly logger: Logger,
    /** Times live events as they are read and sent (see timeRelay). */
    readonly relayed?: Histogram<'stage'>,
  ) {}

  /** The run's events after id `after` (0: all), then the live ones. */
  subscribe(workflowId: string, operation: AnyStreamedOperation, after: number): Subscription {
    let reader = this.readers.get(workflowId);
    if (!reader) {
      reader = new RunReader(this.client, workflowId, operation, after, this.graceMs, this.logger, this.relayed);
      this.readers.set(workflowId, reader);
      reader.start();
    }
    const subscribed = reader;
    subscribed.subscribers++;
    const subscription: Subscription = new Subscription(subscribed, after, () => this.leave(subscribed, subscription));
    this.open.add(subscription);
    if (this.draining) subscription.interrupt();
    return subscription;
  }

  /** Streams being served now. */
  get streams(): number {
    return this.open.size;
  }

  /**
   * Ends every stream, and any opened from now on, so their clients resume on another API
   * process; each run waits for them as for any client that went away. Returns how many ended.
   */
  drain(): number {
    this.draining = true;
    const ended = this.open.size;
    for (const subscription of [...this.open]) subscription.interrupt();
    return ended;
  }

  private leave(reader: RunReader, subscription: Subscription): void {
    this.open.delete(subscription);
    if (--reader.subscribers > 0) return;
    if (this.readers.get(reader.workflowId) === reader) this.readers.delete(reader.workflowId);
    reader.stop();
  }
}
