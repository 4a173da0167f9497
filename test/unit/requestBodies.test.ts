import { parseResearchRequest } from '../../src/api/routes/research';
import {
  AWAITING_ROUTES,
  badRequestMessages,
  bodySchema,
  outcome,
  READERS,
  withBodies,
} from '../support/requestReaders';
import { bodySamples } from '../support/schemaSamples';

/**
 * Each route's reader against the request schema the API description gives for it: every body
 * the schema refuses is refused with a 400 whose message the description lists, and every body
 * it accepts is read, with the schema's defaults applied.
 */

it('has a reader for every request body it describes', () => {
  expect(withBodies.map((operation) => operation.operationId).sort()).toEqual(
    [...Object.keys(READERS), ...AWAITING_ROUTES].sort(),
  );
});

describe.each(withBodies.filter((operation) => READERS[operation.operationId]))(
  '$operationId reads exactly the bodies its schema describes',
  (operation) => {
    const parse = READERS[operation.operationId]!;
    const schema = bodySchema(operation);
    const samples = bodySamples(schema);
    const messages = badRequestMessages(operation);

    it('has samples on both sides of every constraint', () => {
      // A body of two fields (Submit Input Response) has fewer constraints to be on either side of.
      const least = Object.keys(schema.properties as object).length > 2 ? 10 : 3;
      expect(samples.filter((sample) => sample.valid).length).toBeGreaterThan(least);
      expect(samples.filter((sample) => !sample.valid).length).toBeGreaterThan(least);
    });

    it('refuses each body the schema refuses, with a 400 the description lists', () => {
      const wrong = samples
        .filter((sample) => !sample.valid)
        .map((sample) => ({ sample: sample.label, outcome: outcome(parse, sample.body) }))
        .filter(({ outcome }) => !('status' in outcome) || outcome.status !== 400 || !messages.includes(outcome.error));
      expect(wrong).toEqual([]);
    });

    it('reads each body the schema accepts, applying its defaults', () => {
      const properties = schema.properties as Record<string, { default?: unknown }>;
      const wrong = samples
        .filter((sample) => sample.valid)
        .map((sample) => ({ sample: sample.label, body: sample.body, outcome: outcome(parse, sample.body) }))
        .filter(({ body, outcome }) => {
          if (!('read' in outcome)) return true;
          const read = outcome.read as Record<string, unknown>;
          return Object.entries(properties).some(
            ([name, property]) =>
              property.default !== undefined &&
              (body[name] ?? undefined) === undefined &&
              name in read &&
              read[name] !== property.default,
          );
        })
        .map(({ sample, outcome }) => ({ sample, outcome }));
      expect(wrong).toEqual([]);
    });
  },
);

describe('research fetch_timeout', () => {
  it('reads any positive number of seconds, as both official clients type it, capped at 60', () => {
    const timeout = (fetch_timeout: unknown) => outcome(parseResearchRequest, { query: 'q', fetch_timeout });
    expect(timeout(2.5)).toMatchObject({ read: { fetchTimeoutMs: 2500 } });
    expect(timeout(10)).toMatchObject({ read: { fetchTimeoutMs: 10_000 } });
    expect(timeout(600)).toMatchObject({ read: { fetchTimeoutMs: 60_000 } });
    expect(timeout(1e308 * 10)).toMatchObject({ read: { fetchTimeoutMs: 60_000 } });
    for (const refused of [0, -1, '5', true, Number.NaN])
      expect(timeout(refused)).toEqual({ status: 400, error: 'fetch_timeout must be a positive number of seconds' });
  });
});
