/**
 * Server-Sent Events as the spec writes them (section 4 rule 3): `event: <type>`, `data: <JSON>`
 * and a blank line, with an `id:` line first so a client can resume from it (`Last-Event-ID`).
 * JSON text never holds a raw line break (JSON.stringify escapes them), so `data` is one line.
 *
 * A blank line ends an event and nothing else. The official Python client keeps the last `id:`
 * it saw across events (as the SSE standard says) and dispatches any blank line once it has one,
 * so a blank line after a comment would reach its callers as an event with empty data, which it
 * then fails to parse as JSON. The npm client buffers up to a blank line before decoding, and
 * skips comment lines wherever they stand; neither client dispatches a lone comment line.
 */

const LINE_BREAK = /[\r\n]/;

export function sseEvent(id: number, type: string, data: unknown): string {
  if (LINE_BREAK.test(type)) throw new Error(`an event type cannot hold a line break: ${JSON.stringify(type)}`);
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/**
 * A comment line with no blank line after it: clients read it as nothing, while proxies see
 * traffic and keep the connection open.
 */
export function sseComment(text: string): string {
  if (LINE_BREAK.test(text)) throw new Error(`a comment cannot hold a line break: ${JSON.stringify(text)}`);
  return `: ${text}\n`;
}

/** The 400 for a Last-Event-ID that names no event of the stream. */
export const INVALID_LAST_EVENT_ID = 'Last-Event-ID must be the id of an event of this stream';

/** What a client sends back to resume: the last id it saw. Undefined when it sent none. */
export function parseLastEventId(header: string | undefined): number | undefined | 'invalid' {
  const value = header?.trim();
  if (!value) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : 'invalid';
}
