import { Histogram, Registry } from 'prom-client';
import { timeRelay } from '../../src/api/events/runReader';

/**
 * The API's relay histogram times live events from the workflow recording them: an event
 * recorded before the reader (or stream) began is a client catching up on an old run, and would
 * report its age as relay latency.
 */
function histogram(): Histogram<'stage'> {
  return new Histogram({
    name: 'relay_seconds',
    help: 'relay',
    labelNames: ['stage'],
    buckets: [0.1, 1, 1000],
    registers: [new Registry()],
  });
}

async function counts(relayed: Histogram<'stage'>): Promise<{ count: number; sum: number }> {
  const { values } = await relayed.get();
  const of = (name: string) => values.find((value) => value.metricName === name)?.value ?? 0;
  return { count: of('relay_seconds_count'), sum: of('relay_seconds_sum') };
}

it('times only events recorded since the reader began, from their timestamp', async () => {
  const relayed = histogram();
  const since = Date.now() - 1000;
  timeRelay(
    relayed,
    'read',
    [
      { id: 1, event: 'start', data: { message: 'old', timestamp: since - 60_000 } },
      { id: 2, event: 'planning:start', data: { message: 'live', timestamp: since + 500 } },
      { id: 3, event: 'planning:end', data: { message: 'no time' } },
    ],
    since,
  );
  const { count, sum } = await counts(relayed);
  expect(count).toBe(1);
  expect(sum).toBeGreaterThanOrEqual(0.5);
  expect(sum).toBeLessThan(60);
});

it('counts an event stamped ahead of the API clock (the server clock runs ahead) as relayed at once', async () => {
  const relayed = histogram();
  const since = Date.now() - 1000;
  timeRelay(
    relayed,
    'read',
    [{ id: 1, event: 'start', data: { message: 'skewed', timestamp: Date.now() + 5000 } }],
    since,
  );
  const { count, sum } = await counts(relayed);
  expect({ count, sum }).toEqual({ count: 1, sum: 0 });
});
