import { MAX_LINE_CHARS, SseParser, type SseEvent } from '../../src/playground/sse';

/**
 * The playground's reader of event streams (src/playground/sse.ts): it runs in the browser on
 * every chunk the API sends, so it must give the same events however the text is cut, skip the
 * keep-alive comments, and stay linear on a long line.
 */

const STREAM =
  'id: 1\nevent: start\ndata: {"task":"Buy"}\n\n' +
  ': keep-alive\n' +
  'id: 2\r\nevent: agent:status\r\ndata: {"message":"a\\nb"}\r\n\r\n' +
  'id: 3\nevent: done\ndata: {}\n\n';

const EXPECTED: SseEvent[] = [
  { id: '1', event: 'start', data: '{"task":"Buy"}' },
  { id: '2', event: 'agent:status', data: '{"message":"a\\nb"}' },
  { id: '3', event: 'done', data: '{}' },
];

function parse(chunks: string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = new SseParser((event) => events.push(event));
  for (const chunk of chunks) parser.push(chunk);
  return events;
}

it('gives the same events wherever the stream is cut, keep-alive comments skipped', () => {
  expect(parse([STREAM])).toEqual(EXPECTED);
  for (let cut = 1; cut < STREAM.length; cut++)
    expect(parse([STREAM.slice(0, cut), STREAM.slice(cut)])).toEqual(EXPECTED);
  expect(parse([...STREAM])).toEqual(EXPECTED);
});

it('reads a long line sent in small chunks in linear time', () => {
  const line = `id: 1\nevent: browser:screenshot_captured_image\ndata: {"image":"${'A'.repeat(MAX_LINE_CHARS - 100)}"}\n\n`;
  const chunks: string[] = [];
  for (let at = 0; at < line.length; at += 1024) chunks.push(line.slice(at, at + 1024));
  const started = performance.now();
  const events = parse(chunks);
  const ms = performance.now() - started;
  expect(events.map((event) => event.data.length)).toEqual([MAX_LINE_CHARS - 100 + 12]);
  expect(ms).toBeLessThan(1000);
});

it('refuses a line longer than any event the API sends', () => {
  const parser = new SseParser(() => undefined);
  expect(() => {
    for (let sent = 0; sent <= MAX_LINE_CHARS; sent += 1024 * 1024) parser.push('A'.repeat(1024 * 1024));
  }).toThrow('the stream sent a line too long to be an event');
});
