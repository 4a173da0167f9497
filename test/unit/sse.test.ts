import { parseLastEventId, sseComment, sseEvent } from '../../src/events/sse';

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

  it('writes heartbeats as comment lines, and refuses line breaks where they would split the stream', () => {
    expect(sseComment('keep-alive')).toBe(': keep-alive\n\n');
    expect(() => sseEvent(1, 'bad\nevent', {})).toThrow(/line break/);
    expect(() => sseComment('a\rb')).toThrow(/line break/);
  });

  it('reads Last-Event-ID: absent, a sequence number, or invalid', () => {
    expect(parseLastEventId(undefined)).toBeUndefined();
    expect(parseLastEventId('')).toBeUndefined();
    expect(parseLastEventId(' 42 ')).toBe(42);
    expect(parseLastEventId('0')).toBe(0);
    for (const bad of ['-1', '4.5', 'abc', '1e3', '9999999999999999']) expect(parseLastEventId(bad)).toBe('invalid');
  });
});
