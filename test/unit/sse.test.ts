import { Stream } from '@tabstack/sdk/core/streaming';
import { parseLastEventId, sseComment, sseEvent } from '../../src/events/sse';
import { QUIET_RUN_WRITES } from '../support/sseClient';

/** The npm client's own decoding of a response, each write arriving as a chunk of its own. */
async function npmClientReads(writes: string[]): Promise<unknown[]> {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const text of writes) controller.enqueue(encoder.encode(text));
      controller.close();
    },
  });
  const read: unknown[] = [];
  for await (const event of Stream.fromSSEResponse(new Response(body), new AbortController(), undefined, true))
    read.push(event);
  return read;
}

describe('SSE encoding', () => {
  it('writes an event as id, event and data lines and a blank line (spec §4.3)', () => {
    expect(sseEvent(7, 'analyzing:end', { iteration: 1, samples: [] })).toBe(
      'id: 7\nevent: analyzing:end\ndata: {"iteration":1,"samples":[]}\n\n',
    );
  });

  it('keeps data on one line whatever the text holds', () => {
    const encoded = sseEvent(1, 'complete', { report: '# Title\r\n\nline\u2028two\n\n' });
    expect(encoded.split('\n')).toEqual([
      'id: 1',
      'event: complete',
      'data: {"report":"# Title\\r\\n\\nline\u2028two\\n\\n"}',
      '',
      '',
    ]);
    expect(JSON.parse(encoded.split('\n')[2]!.slice('data: '.length))).toEqual({
      report: '# Title\r\n\nline\u2028two\n\n',
    });
  });

  it('writes heartbeats as lone comment lines, and refuses line breaks where they would split the stream', () => {
    // No blank line after it: once an event carried an id, the Python client dispatches every blank line.
    expect(sseComment('keep-alive')).toBe(': keep-alive\n');
    expect(() => sseEvent(1, 'bad\nevent', {})).toThrow(/line break/);
    expect(() => sseComment('a\rb')).toThrow(/line break/);
  });

  it('reads as only its events in the npm client, comments anywhere', async () => {
    expect(await npmClientReads(QUIET_RUN_WRITES)).toEqual([
      { event: 'start', data: { message: 'go', timestamp: 1 } },
      { event: 'complete', data: { report: 'done\n\n', timestamp: 2 } },
    ]);
    expect(QUIET_RUN_WRITES.join('').split('\n\n')).toHaveLength(3);
  });

  it('reads Last-Event-ID: absent, a sequence number, or invalid', () => {
    expect(parseLastEventId(undefined)).toBeUndefined();
    expect(parseLastEventId('')).toBeUndefined();
    expect(parseLastEventId(' 42 ')).toBe(42);
    expect(parseLastEventId('0')).toBe(0);
    for (const bad of ['-1', '4.5', 'abc', '1e3', '9999999999999999']) expect(parseLastEventId(bad)).toBe('invalid');
  });
});
