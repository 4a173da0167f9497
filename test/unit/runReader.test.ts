import type { Client } from '@temporalio/client';
import pino from 'pino';
import { RunReader } from '../../src/api/events/runReader';
import { researchStream } from '../../src/events/streams';
import { eventually } from '../support/eventually';

/**
 * The API's reader of a run's events, against a stand-in for Temporal's client (no server): a
 * run still under way whose reads answer but whose catch-up queries are refused, so the reader
 * ends its stream with `stream_failed`. The run goes on, and records its next events with the
 * next ids; the failure event must not take one of them, or a client resuming from it with
 * Last-Event-ID would skip that event.
 */
function temporalRefusingQueries(): Client {
  const handle = {
    // Events 2 and 3 are recorded; this answer skips to 3, so the reader catches up on 2 by query.
    executeUpdate: async () => ({
      events: [{ id: 3, event: 'planning:end', data: {} }],
      headId: 3,
      closed: false,
      readsSpent: false,
    }),
    query: async () => {
      throw new Error('query refused');
    },
    describe: async () => ({ status: { name: 'RUNNING' } }),
    signal: async () => undefined,
  };
  return { workflow: { getHandle: () => handle } } as unknown as Client;
}

it('gives the failure event of a run still under way the id its client holds, not the next event’s', async () => {
  const reader = new RunReader(
    temporalRefusingQueries(),
    'org/research/01',
    researchStream,
    1,
    60_000,
    pino({ level: 'silent' }),
  );
  reader.start();
  const ending = await eventually(() => reader.ending, { what: 'the reader to end the stream', timeoutMs: 5_000 });
  expect(ending).toMatchObject({ id: 1, event: 'error', data: { error: { name: 'stream_failed' } } });
});

/** A run whose reads Temporal keeps refusing as overloaded, while its queries answer: nothing new. */
function temporalOverloadedForReads(): { client: Client; reads: () => number } {
  let reads = 0;
  const handle = {
    executeUpdate: async () => {
      reads++;
      throw Object.assign(new Error('too many updates in flight'), { code: 8 });
    },
    query: async () => ({ events: [], headId: 1, closed: false, readsSpent: false }),
    describe: async () => ({ status: { name: 'RUNNING' } }),
    signal: async () => undefined,
  };
  return { client: { workflow: { getHandle: () => handle } } as unknown as Client, reads: () => reads };
}

it('asks again at the query pace, not in a tight loop, while Temporal refuses reads as overloaded', async () => {
  const temporal = temporalOverloadedForReads();
  const reader = new RunReader(
    temporal.client,
    'org/research/02',
    researchStream,
    1,
    60_000,
    pino({ level: 'silent' }),
  );
  reader.start();
  // Watching the pace over a stretch of time is the point; nothing marks its end.
  await new Promise((resolve) => setTimeout(resolve, 600));
  reader.stop();
  // Every 500 ms: two reads in 600 ms. Every 20 ms, as before, it was about thirty.
  expect(temporal.reads()).toBeLessThanOrEqual(4);
});
