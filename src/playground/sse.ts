/** One Server-Sent Event as the API writes them (src/events/sse.ts): its id, type and JSON text. */
export interface SseEvent {
  id?: string;
  event: string;
  data: string;
}

/**
 * Longest line kept while waiting for its end. A screenshot event is the largest the API sends
 * (scaled, a few hundred kilobytes); a stream that goes past this is not one of ours.
 */
export const MAX_LINE_CHARS = 8 * 1024 * 1024;

/**
 * Reads the event-stream format as the standard says: lines, `field: value`, a blank line
 * dispatching the event; comment lines (`: keep-alive`) are skipped. Each character is looked at
 * once however the text is split into chunks.
 */
export class SseParser {
  private buffer = '';
  private lastId: string | undefined;
  private type = '';
  private data: string[] = [];

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  push(text: string): void {
    let start = 0;
    let from = this.buffer.length;
    this.buffer += text;
    for (let end = this.buffer.indexOf('\n', from); end >= 0; end = this.buffer.indexOf('\n', from)) {
      const line = this.buffer.slice(start, end);
      this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = from = end + 1;
    }
    this.buffer = this.buffer.slice(start);
    if (this.buffer.length > MAX_LINE_CHARS) throw new Error('the stream sent a line too long to be an event');
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0)
        this.onEvent({ id: this.lastId, event: this.type || 'message', data: this.data.join('\n') });
      this.type = '';
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.type = value;
    else if (field === 'id' && !value.includes('\0')) this.lastId = value;
  }
}

/** Feeds a response's body to `onEvent` until it ends, or `signal` aborts the read. */
export async function readEvents(
  response: Response,
  onEvent: (event: SseEvent) => void,
  signal: AbortSignal,
): Promise<void> {
  if (!response.body) return;
  const parser = new SseParser(onEvent);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const cancel = () => void reader.cancel().catch(() => undefined);
  signal.addEventListener('abort', cancel, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      parser.push(value);
    }
  } finally {
    signal.removeEventListener('abort', cancel);
  }
}
