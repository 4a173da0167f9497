import { livePollers, neededQueues, POLLER_SEEN_MS } from '../../src/api/readiness';
import { loadConfig } from '../../src/config';

const seenAt = (ms: number) => ({
  lastAccessTime: { seconds: { toString: () => String(Math.floor(ms / 1000)) }, nanos: (ms % 1000) * 1e6 },
});

describe('readiness', () => {
  test('a poller counts while Temporal saw it within the last long poll and a half', () => {
    const now = 1_800_000_000_000;
    // An idle worker renews its poll once a minute; one that went away stays listed for minutes.
    const pollers = [seenAt(now - 1000), seenAt(now - 61_000), seenAt(now - POLLER_SEEN_MS - 1000), {}];
    expect(livePollers(pollers, now)).toBe(2);
    expect(livePollers([], now)).toBe(0);
  });

  test('needs the model and search queues only where those operations are offered', () => {
    const plain = neededQueues(loadConfig({ API_KEYS: 'key-0123456789abcdef:org' }));
    expect(plain.map((queue) => `${queue.name}:${queue.type}`)).toEqual([
      'webloom-workflows:workflow',
      'webloom-fetch:activity',
      'webloom-browser:activity',
    ]);
    const full = neededQueues(
      loadConfig({ OPENAI_MODEL: 'm', OPENAI_BASE_URL: 'http://model:8000/v1', SEARXNG_URL: 'http://searx:8080' }),
    );
    expect(full.map((queue) => queue.name)).toEqual([
      'webloom-workflows',
      'webloom-fetch',
      'webloom-browser',
      'webloom-model',
      'webloom-search',
    ]);
  });
});
