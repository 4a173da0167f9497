/** A Server-Sent Events client for tests: every message (events and comments) with its arrival time. */
export interface SseMessage {
  id?: string;
  event?: string;
  data?: string;
  comment?: string;
  /** Date.now() when the message's last byte arrived. */
  at: number;
}

export class SseStream {
  readonly messages: SseMessage[] = [];
  /** Everything the server sent, as text. */
  raw = '';
  /** Resolves when the server ends the response (or the stream is aborted). */
  readonly finished: Promise<void>;
  private text = '';
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
    if (!this.response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of this.response.body as unknown as AsyncIterable<Uint8Array>) {
        const text = decoder.decode(chunk, { stream: true });
        this.raw += text;
        this.text += text;
        this.parse();
      }
    } catch (err) {
      if ((err as Error).name !== 'AbortError') throw err;
    } finally {
      this.wake();
    }
  }

  private parse(): void {
    for (let end = this.text.indexOf('\n\n'); end >= 0; end = this.text.indexOf('\n\n')) {
      const block = this.text.slice(0, end);
      this.text = this.text.slice(end + 2);
      const message: SseMessage = { at: Date.now() };
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === '') message.comment = value;
        else if (field === 'id' || field === 'event' || field === 'data') message[field] = value;
        else throw new Error(`unexpected line in the stream: ${JSON.stringify(line)}`);
      }
      this.messages.push(message);
    }
    this.wake();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
