import { ServiceError } from '../../src/errors';
import { apiDocument } from '../../src/api/openapi/document';
import { parseAutomateRequest, parseInputAnswer } from '../../src/api/routes/automate';
import { parseExtractMarkdown } from '../../src/api/routes/extractMarkdown';
import { parseResearchRequest } from '../../src/api/routes/research';
import { parseStructuredRequest } from '../../src/api/routes/structuredJson';
import { bodySamples } from '../support/schemaSamples';

/**
 * Each route's reader against the request schema the API description gives for it: every body
 * the schema refuses is refused with a 400 whose message the description lists, and every body
 * it accepts is read, with the schema's defaults applied.
 */

type Parse = (body: Record<string, unknown>) => object;
type Schema = Record<string, unknown>;

/** By operationId. Automate's readers join here with its routes. */
const READERS: Record<string, Parse> = {
  extractMarkdown: parseExtractMarkdown,
  extractJson: (body) => parseStructuredRequest(body, false),
  generateJson: (body) => parseStructuredRequest(body, true),
  research: parseResearchRequest,
  automate: parseAutomateRequest,
  automateInput: (body) => parseInputAnswer('request', body),
};
const AWAITING_ROUTES: string[] = [];

interface Operation {
  operationId: string;
  requestBody?: { content: { 'application/json': { schema: { $ref: string } } } };
  responses: Record<string, { content?: { 'application/json'?: { examples?: Record<string, { value: unknown }> } } }>;
}

const document = apiDocument();
const schemas = (document.components as { schemas: Record<string, Schema> }).schemas;
const operations = Object.values(document.paths).flatMap((item) =>
  Object.values(item).filter((value): value is Operation => typeof value === 'object' && 'operationId' in value!),
);
const withBodies = operations.filter((operation) => operation.requestBody);

function outcome(parse: Parse, body: Record<string, unknown>): { read: object } | { status: number; error: string } {
  try {
    return { read: parse(body) };
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, error: err.message };
    throw err;
  }
}

it('has a reader for every request body it describes', () => {
  expect(withBodies.map((operation) => operation.operationId).sort()).toEqual(
    [...Object.keys(READERS), ...AWAITING_ROUTES].sort(),
  );
});

describe.each(withBodies.filter((operation) => READERS[operation.operationId]))(
  '$operationId reads exactly the bodies its schema describes',
  (operation) => {
    const parse = READERS[operation.operationId]!;
    const schema = schemas[operation.requestBody!.content['application/json'].schema.$ref.split('/').at(-1)!]!;
    const samples = bodySamples(schema);
    const examples = operation.responses['400']?.content?.['application/json']?.examples ?? {};
    const messages = Object.values(examples).map((example) => (example.value as { error: string }).error);

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
