import fc from 'fast-check';
import { tallied } from '../support/reliabilityVerdicts';
import { badRequestMessages, bodySchema, outcome, READERS, withBodies, type Schema } from '../support/requestReaders';

/**
 * Every request reader against bodies made to break it (fast-check, a fixed seed; `FUZZ_RUNS`
 * asks for a longer run): each field of the operation present or not, holding a value of its own
 * type at and past its bounds, or any JSON at all (unicode edge cases, lone surrogates, deep
 * nesting, huge strings), beside fields the operation does not know. A body is read, or refused
 * with a 400 whose message the API description lists; nothing else escapes a reader.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
const SEED = 20261127;

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '\u0000',
    '\ud800',
    '\udfff\ud800',
    '\u202e',
    '\ufeff',
    'https://',
    'http://[::1',
    '💥'.repeat(500),
  ),
  fc.nat({ max: 30_000 }).map((length) => 'x'.repeat(length)),
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
);
const number = fc.oneof(fc.double(), fc.integer(), fc.constantFrom(0, -0, 1e308, -1e308, 2 ** 53, 0.1));

/** Whether a reader read the body or refused it with a 400 the description lists; counted by answer. */
function readOrListed(
  result: ReturnType<typeof outcome>,
  messages: readonly string[],
  count: (answer: string) => void,
): boolean {
  if ('read' in result) {
    count('read');
    return true;
  }
  const listed = result.status === 400 && messages.includes(result.error);
  count(listed ? String(result.status) : `${result.status} unlisted`);
  return listed;
}

/** Hostile JSON: any value, nested deeper than any reader should walk. */
const deep = fc.nat({ max: 5_000 }).map((depth) => {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { nested: value };
  return value;
});
const anyJson = fc.oneof(fc.jsonValue({ maxDepth: 6 }), deep, text, number, fc.constant(null));

/** A value for one field: mostly of its declared type, else anything. */
function fieldValue(property: Schema): fc.Arbitrary<unknown> {
  const types = [property.type].flat();
  const own = types.flatMap((type): fc.Arbitrary<unknown>[] => {
    if (type === 'string') return [text, ...(property.enum ? [fc.constantFrom(...(property.enum as string[]))] : [])];
    if (type === 'number' || type === 'integer') return [number];
    if (type === 'boolean') return [fc.boolean()];
    if (type === 'array') return [fc.array(anyJson, { maxLength: 300 })];
    if (type === 'object') return [fc.dictionary(text, anyJson, { maxKeys: 20 })];
    return [];
  });
  return own.length > 0
    ? fc.oneof({ weight: 3, arbitrary: fc.oneof(...own) }, { weight: 1, arbitrary: anyJson })
    : anyJson;
}

describe.each(withBodies.filter((operation) => READERS[operation.operationId]))('$operationId', (operation) => {
  it('reads or refuses with a listed 400 whatever the body holds', () => {
    const schema = bodySchema(operation);
    const properties = schema.properties as Record<string, Schema>;
    const messages = badRequestMessages(operation);
    const body = fc.record(
      {
        ...Object.fromEntries(Object.entries(properties).map(([name, property]) => [name, fieldValue(property)])),
        unknown_field: anyJson,
      },
      { requiredKeys: [] },
    );
    const row = { fault: 'fuzzed body', target: operation.operationId, seed: SEED, runs: RUNS };
    return tallied('fuzz-unit', row, (count) =>
      fc.assert(
        fc.property(body, (sample) => {
          const result = outcome(READERS[operation.operationId]!, sample as Record<string, unknown>);
          return readOrListed(result, messages, count);
        }),
        { seed: SEED, numRuns: RUNS },
      ),
    );
  });
});

/** JSON Schemas of every shape: keywords mixed with wrong values, references to anywhere, deep nesting. */
const { schema: anySchema } = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.boolean(),
    fc.record(
      {
        type: fc.oneof(
          fc.constantFrom('object', 'array', 'string', 'number', 'integer', 'boolean', 'null', 'nope'),
          fc.array(fc.constantFrom('string', 'null', 'object'), { maxLength: 3 }),
          anyJson,
        ),
        properties: fc.dictionary(text, tie('schema'), { maxKeys: 5 }),
        items: tie('schema'),
        required: fc.oneof(fc.array(text, { maxLength: 5 }), anyJson),
        anyOf: fc.array(tie('schema'), { maxLength: 3 }),
        allOf: fc.array(tie('schema'), { maxLength: 3 }),
        $ref: fc.constantFrom('#', '#/properties/a', '#/$defs/x', 'http://127.0.0.1/schema', 'urn:x', '#/items/items'),
        $defs: fc.dictionary(text, tie('schema'), { maxKeys: 3 }),
        enum: fc.array(anyJson, { maxLength: 5 }),
        pattern: fc.constantFrom('(a+)+$', '^(a|aa)*$', '[', '\\', '(?<n>x)\\k<n>', '.*'.repeat(50)),
        format: fc.constantFrom('email', 'uri', 'date-time', 'regex', 'unknown-format'),
        minLength: number,
        maxItems: number,
        $schema: fc.constantFrom(
          'https://json-schema.org/draft/2020-12/schema',
          'http://json-schema.org/draft-07/schema#',
          'http://json-schema.org/draft-04/schema#',
          'http://127.0.0.1/meta',
        ),
      },
      { requiredKeys: [] },
    ),
  ),
}));

it('Extract JSON reads or refuses with a listed 400 every JSON Schema, recursive and invalid ones too', () => {
  const operation = withBodies.find((candidate) => candidate.operationId === 'extractJson')!;
  const messages = badRequestMessages(operation);
  const row = { fault: 'fuzzed JSON Schema', target: 'extractJson', seed: SEED, runs: RUNS };
  return tallied('fuzz-unit', row, (count) =>
    fc.assert(
      fc.property(anySchema, (json_schema) => {
        const result = outcome(READERS.extractJson!, { url: 'https://example.com/', json_schema });
        return readOrListed(result, messages, count);
      }),
      { seed: SEED, numRuns: RUNS },
    ),
  );
});
