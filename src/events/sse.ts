/**
 * Server-Sent Events as the spec writes them (section 4 rule 3): `event: <type>`, `data: <JSON>`
 * and a blank line, with an `id:` line first so a client can resume from it (`Last-Event-ID`).
 * JSON text never holds a raw line break (JSON.stringify escapes them), so `data` is one line.
 */

const LINE_BREAK = /[\r\n]/;

export function sseEvent(id: number, type: string, data: unknown): string {
  if (LINE_BREAK.test(type)) throw new Error(`an event type cannot hold a line break: ${JSON.stringify(type)}`);
  return `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A comment line: clients ignore it, while proxies see traffic and keep the connection open. */
export function sseComment(text: string): string {
  if (LINE_BREAK.test(text)) throw new Error(`a comment cannot hold a line break: ${JSON.stringify(text)}`);
  return `: ${text}\n\n`;
}

/** What a client sends back to resume: the last id it saw. Undefined when it sent none. */
export function parseLastEventId(header: string | undefined): number | undefined | 'invalid' {
  const value = header?.trim();
  if (!value) return undefined;
  return /^\d{1,15}$/.test(value) ? Number(value) : 'invalid';
}
