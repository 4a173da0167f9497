import type { Client } from '@temporalio/client';
import type { RecordedEvent } from '../../events/messages';
import type { AnyStreamedOperation } from '../../events/streams';
import type { Logger } from '../../logger';
import { READ_FAILED, RunReader } from './runReader';

/** One client's view of a run's events: from its own position, at its own pace. */
export class Subscription {
  private closed = false;
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
}

/**
 * Every run this API process streams: one reader per run, whatever the number of its clients
 * here, so a run's events are read from Temporal once per process and fanned out in memory.
 * A reader goes when its last client does, which lets the run's grace period start.
 */
export class EventRelay {
  private readonly readers = new Map<string, RunReader>();
  /** Open subscriptions, one per stream being served. */
  subscriptions = 0;

  constructor(
    private readonly client: Client,
    private readonly graceMs: number,
    private readonly logger: Logger,
  ) {}

  /** The run's events after id `after` (0: all), then the live ones. */
  subscribe(workflowId: string, operation: AnyStreamedOperation, after: number): Subscription {
    let reader = this.readers.get(workflowId);
    if (!reader) {
      reader = new RunReader(this.client, workflowId, operation, after, this.graceMs, this.logger);
      this.readers.set(workflowId, reader);
      reader.start();
    }
    const subscribed = reader;
    subscribed.subscribers++;
    this.subscriptions++;
    return new Subscription(subscribed, after, () => this.leave(subscribed));
  }

  private leave(reader: RunReader): void {
    this.subscriptions--;
    if (--reader.subscribers > 0) return;
    if (this.readers.get(reader.workflowId) === reader) this.readers.delete(reader.workflowId);
    reader.stop();
  }
}
