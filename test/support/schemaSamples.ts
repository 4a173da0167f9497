import Ajv2020 from 'ajv/dist/2020';

/**
 * Request bodies made from a JSON Schema of an object, each labelled valid or invalid by a real
 * validator (ajv, draft 2020-12), to check a hand-written reader against the schema that
 * documents it: a body the schema refuses must be refused, one it accepts must be accepted.
 * Each body changes one property of a minimal valid body, to values around every constraint
 * the property's schema states (type, choices, length, bounds, pattern, nested properties).
 */

type Schema = Record<string, unknown>;

export interface BodySample {
  /** What was changed, for failure messages. */
  label: string;
  body: Record<string, unknown>;
  valid: boolean;
}

const ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });

/** A character outside the Basic Multilingual Plane: one code point, two UTF-16 units. */
const ASTRAL = '\u{1F600}';

/** Values of every JSON type, and the edges of strings. */
const GENERIC: unknown[] = [null, true, false, 0, 7, 1.5, -1, '', '   ', 'x', [], ['x'], {}];

function types(schema: Schema): string[] {
  const type = schema.type;
  return type === undefined ? [] : Array.isArray(type) ? (type as string[]) : [type as string];
}

/** Candidate values for one property: around each constraint its schema states. */
function candidates(schema: Schema, depth = 0): unknown[] {
  const values: unknown[] = [...GENERIC];
  if (schema.default !== undefined) values.push(schema.default);
  if (Array.isArray(schema.examples)) values.push(...(schema.examples as unknown[]));
  if (Array.isArray(schema.enum)) values.push(...(schema.enum as unknown[]), 'not-one-of-these');
  for (const bound of [schema.minimum, schema.exclusiveMinimum, schema.maximum]) {
    if (typeof bound === 'number') values.push(bound - 1, bound, bound + 1);
  }
  if (typeof schema.maxLength === 'number') {
    const max = schema.maxLength;
    values.push('x'.repeat(max), 'x'.repeat(max + 1), ASTRAL.repeat(max), ASTRAL.repeat(max + 1));
  }
  if (typeof schema.pattern === 'string') values.push('USA', 'us', '1');
  const properties = schema.properties as Record<string, Schema> | undefined;
  if (properties && depth === 0) {
    for (const [name, property] of Object.entries(properties)) {
      for (const value of candidates(property, depth + 1)) values.push({ [name]: value });
    }
  }
  return values;
}

/** A value the schema accepts, for the minimal body: an example, else a plain value of its type. */
function validValue(schema: Schema): unknown {
  if (Array.isArray(schema.examples)) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = types(schema)[0];
  if (type === 'string') return schema.format === 'uri' ? 'https://example.com/page' : 'x';
  if (type === 'integer' || type === 'number') return (schema.minimum as number | undefined) ?? 1;
  if (type === 'boolean') return false;
  if (type === 'object') return {};
  throw new Error(`no valid value for ${JSON.stringify(schema)}`);
}

export function bodySamples(schema: Schema): BodySample[] {
  const check = ajv.compile(schema);
  const properties = schema.properties as Record<string, Schema>;
  const required = (schema.required as string[] | undefined) ?? [];
  const base = Object.fromEntries(required.map((name) => [name, validValue(properties[name]!)]));
  const bodies: { label: string; body: Record<string, unknown> }[] = [
    { label: 'only the required fields', body: base },
    { label: 'an unknown field', body: { ...base, unknown_field: 1 } },
    {
      label: 'every field',
      body: Object.fromEntries(Object.entries(properties).map(([name, field]) => [name, validValue(field)])),
    },
  ];
  for (const name of required) {
    const rest = { ...base };
    delete rest[name];
    bodies.push({ label: `without ${name}`, body: rest });
  }
  for (const [name, property] of Object.entries(properties)) {
    for (const value of candidates(property)) {
      const shown = typeof value === 'string' && value.length > 20 ? `${value.length} code units` : value;
      bodies.push({ label: `${name}: ${JSON.stringify(shown)}`, body: { ...base, [name]: value } });
    }
  }
  return bodies.map((sample) => ({ ...sample, valid: check(sample.body) }));
}
