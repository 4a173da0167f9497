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
  /** The start of a line whose end has not come yet, in the pieces it came in. */
  private pending: string[] = [];
  private pendingChars = 0;
  private lastId: string | undefined;
  private type = '';
  private data: string[] = [];

  constructor(private readonly onEvent: (event: SseEvent) => void) {}

  /**
   * The pieces of an unfinished line are joined once, when its end comes: appending to one string
   * and searching it again on every chunk took 98 s for an 8 MB line in 1 kB chunks.
   */
  push(text: string): void {
    let start = 0;
    for (let end = text.indexOf('\n'); end >= 0; end = text.indexOf('\n', start)) {
      let line = text.slice(start, end);
      if (this.pending.length > 0) {
        line = this.pending.join('') + line;
        this.pending = [];
        this.pendingChars = 0;
      }
      this.line(line.endsWith('\r') ? line.slice(0, -1) : line);
      start = end + 1;
    }
    if (start === text.length) return;
    this.pending.push(text.slice(start));
    this.pendingChars += text.length - start;
    if (this.pendingChars > MAX_LINE_CHARS) throw new Error('the stream sent a line too long to be an event');
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
