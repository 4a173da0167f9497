import { sseComment, sseEvent } from '../../src/events/sse';

/** What a run that goes quiet between its events writes, one write at a time. */
export const QUIET_RUN_WRITES = [
  sseComment('connected'),
  sseEvent(1, 'start', { message: 'go', timestamp: 1 }),
  sseComment('keep-alive'),
  sseComment('keep-alive'),
  sseEvent(2, 'complete', { report: 'done\n\n', timestamp: 2 }),
  sseComment('server shutting down; resume at GET /v1/runs/research-x/events with Last-Event-ID'),
];

/** A Server-Sent Events client for tests: every message (events and comments) with its arrival time. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  /** Date.now() when the message's last byte arrived. */
  at: number;
}

/**
 * Every message of an event stream as it arrives, read line by line as the standard says: a
 * comment line is a message at once, and an event's fields gather up to the blank line that ends
 * it. A blank line with no field before it is an error here: the Python client would dispatch it
 * as an event with empty data. `onText` sees the text as it comes.
 */
export async function* sseMessages(response: Response, onText?: (text: string) => void): AsyncGenerator<SseMessage> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let text = '';
  let fields: Omit<SseMessage, 'at'> = {};
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const received = decoder.decode(chunk, { stream: true });
    onText?.(received);
    text += received;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n')) {
      const line = text.slice(0, end);
      text = text.slice(end + 1);
      if (line === '') {
        if (Object.keys(fields).length === 0) throw new Error('a blank line that ends no event');
        yield { ...fields, at: Date.now() };
        fields = {};
        continue;
      }
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === '') yield { comment: value, at: Date.now() };
      else if (field === 'id' || field === 'event' || field === 'data') fields[field] = value;
      else throw new Error(`unexpected line in the stream: ${JSON.stringify(line)}`);
    }
  }
}

export class SseStream {
  readonly messages: SseMessage[] = [];
  /** Everything the server sent, as text. */
  raw = '';
  /** Resolves when the server ends the response (or the stream is aborted). */
  readonly finished: Promise<void>;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly response: Response,
    private readonly controller: AbortController,
  ) {
    this.finished = this.pump();
  }

  static async open(
    url: string,
    options: { key: string; lastEventId?: string | number; method?: string; body?: unknown },
  ): Promise<SseStream> {
    const controller = new AbortController();
    const headers: Record<string, string> = { authorization: `Bearer ${options.key}` };
    if (options.lastEventId !== undefined) headers['last-event-id'] = String(options.lastEventId);
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    const response = await fetch(url, {
      method: options.method ?? 'GET',
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: controller.signal,
    });
    return new SseStream(response, controller);
  }

  get events(): SseMessage[] {
    return this.messages.filter((message) => message.event !== undefined);
  }

  get comments(): SseMessage[] {
    return this.messages.filter((message) => message.comment !== undefined);
  }

  /** Waits until `ready` holds for the messages so far; fails after `timeoutMs`. */
  async until(ready: (stream: SseStream) => boolean, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.finished.then(() => (ended = true));
    while (!ready(this)) {
      if (ended)
        throw new Error(
          `the stream ended before the condition held; got ${JSON.stringify(this.messages.map((m) => m.event ?? `:${m.comment}`))}`,
        );
      if (Date.now() > deadline)
        throw new Error(`timed out; got ${JSON.stringify(this.messages.map((m) => m.event ?? `:${m.comment}`))}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Drops the connection, as a client that went away. */
  abort(): void {
    this.controller.abort();
  }

  private async pump(): Promise<void> {
    try {
      for await (const message of sseMessages(this.response, (text) => (this.raw += text))) {
        this.messages.push(message);
        this.wake();
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    } finally {
      this.wake();
    }
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
