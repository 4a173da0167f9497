import { ServiceError } from '../../src/errors';
import type { RequestBody, BodyField } from '../../src/api/requestBody';
import { extractJsonBody, extractMarkdownBody, generateJsonBody, researchBody } from '../../src/api/requestBodies';
import { parseExtractMarkdown } from '../../src/api/routes/extractMarkdown';
import { parseResearchRequest } from '../../src/api/routes/research';
import { parseStructuredRequest } from '../../src/api/routes/structuredJson';
import { bodySamples } from '../support/schemaSamples';

/**
 * Each route's reader against the schema that documents its body: every body the schema
 * refuses is refused with a 400 whose message the description lists, and every body it accepts
 * is read, with the schema's defaults applied.
 */

type Parse = (body: Record<string, unknown>) => object;

const ROUTES: [string, RequestBody<Record<string, BodyField<unknown>>>, Parse][] = [
  ['POST /extract/markdown', extractMarkdownBody, parseExtractMarkdown],
  ['POST /extract/json', extractJsonBody, (body) => parseStructuredRequest(body, false)],
  ['POST /generate/json', generateJsonBody, (body) => parseStructuredRequest(body, true)],
  ['POST /research', researchBody, parseResearchRequest],
];

function outcome(parse: Parse, body: Record<string, unknown>): { read: object } | { status: number; error: string } {
  try {
    return { read: parse(body) };
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, error: err.message };
    throw err;
  }
}

describe.each(ROUTES)('%s reads exactly the bodies its schema describes', (_operation, definition, parse) => {
  const samples = bodySamples(definition.schema);
  const messages = definition.errors();

  it('has samples on both sides of every constraint', () => {
    expect(samples.filter((sample) => sample.valid).length).toBeGreaterThan(10);
    expect(samples.filter((sample) => !sample.valid).length).toBeGreaterThan(10);
  });

  it('refuses each body the schema refuses, with a 400 the description lists', () => {
    const wrong = samples
      .filter((sample) => !sample.valid)
      .map((sample) => ({ sample: sample.label, outcome: outcome(parse, sample.body) }))
      .filter(({ outcome }) => !('status' in outcome) || outcome.status !== 400 || !messages.includes(outcome.error));
    expect(wrong).toEqual([]);
  });

  it('reads each body the schema accepts, applying its defaults', () => {
    const properties = definition.schema.properties as Record<string, { default?: unknown }>;
    const wrong = samples
      .filter((sample) => sample.valid)
      .map((sample) => ({ sample: sample.label, body: sample.body, outcome: outcome(parse, sample.body) }))
      .filter(({ body, outcome }) => {
        if (!('read' in outcome)) return true;
        const read = outcome.read as Record<string, unknown>;
        return Object.entries(properties).some(([name, schema]) =>
          schema.default !== undefined && (body[name] ?? undefined) === undefined && name in read
            ? read[name] !== schema.default
            : false,
        );
      })
      .map(({ sample, outcome }) => ({ sample, outcome }));
    expect(wrong).toEqual([]);
  });
});
