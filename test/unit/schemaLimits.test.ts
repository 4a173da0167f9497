import { compileSchema } from '../../src/structured/schema';
import { checkSchemaLimits, nestedDeeperThan, SchemaRefused } from '../../src/structured/schemaLimits';

const refused = (schema: Record<string, unknown>): string => {
  try {
    checkSchemaLimits(schema);
  } catch (err) {
    if (err instanceof SchemaRefused) return err.message;
    throw err;
  }
  return 'accepted';
};

describe('checkSchemaLimits', () => {
  it.each([
    ['a plain object schema', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
    [
      'a tree that recurses through items',
      { $defs: { n: { properties: { kids: { items: { $ref: '#/$defs/n' } } } } }, $ref: '#/$defs/n' },
    ],
    [
      'draft-07 definitions and a plain-name $id anchor',
      {
        $schema: 'http://json-schema.org/draft-07/schema#',
        definitions: { a: { $id: '#a', type: 'string' } },
        properties: { x: { $ref: '#a' } },
      },
    ],
    ['a 2020-12 $anchor', { $defs: { a: { $anchor: 'item', type: 'number' } }, items: { $ref: '#item' } }],
    [
      'a reference to an embedded resource by its $id',
      {
        $id: 'https://example.com/root',
        $defs: { a: { $id: 'part', type: 'string' } },
        properties: { x: { $ref: 'part' } },
      },
    ],
    [
      'properties named like keywords',
      { properties: { enum: { type: 'string' }, allOf: { type: 'number' }, not: { $ref: '#/properties/enum' } } },
    ],
    [
      'a pointer with escaped characters',
      { $defs: { 'a/b~c': { type: 'string' } }, properties: { x: { $ref: '#/$defs/a~1b~0c' } } },
    ],
    [
      'a shared definition used twice in place',
      { $defs: { s: { type: 'string' } }, allOf: [{ $ref: '#/$defs/s' }, { $ref: '#/$defs/s' }] },
    ],
  ])('accepts %s, which ajv compiles', (_name, schema) => {
    expect(refused(schema)).toBe('accepted');
    expect(compileSchema(schema)({})).toEqual(expect.any(Array));
  });

  it.each([
    ['a root that refers to itself', { $ref: '#' }, /refers back to itself/],
    ['a property that refers to itself', { properties: { a: { $ref: '#/properties/a' } } }, /refers back to itself/],
    [
      'a loop through not and if',
      { $defs: { a: { not: { $ref: '#/$defs/b' } }, b: { if: { $ref: '#/$defs/a' } } }, $ref: '#/$defs/a' },
      /refers back to itself/,
    ],
    ['an anchor loop', { $defs: { a: { $anchor: 'x', allOf: [{ $ref: '#x' }] } } }, /refers back to itself/],
    ['a remote reference', { $ref: 'https://example.com/other.json' }, /does not name a part of the schema/],
    ['a pointer to nothing', { $ref: '#/$defs/missing' }, /does not name a part of the schema/],
    [
      'a deep document',
      JSON.parse(`${'{"a":'.repeat(70)}{}${'}'.repeat(70)}`) as Record<string, unknown>,
      /nested deeper than 64 levels/,
    ],
    ['a wide document', { enum: Array.from({ length: 20_001 }, (_, i) => i) }, /more than 20000 nodes/],
    [
      'a chain of 3,000 references',
      { $defs: Object.fromEntries(Array.from({ length: 3000 }, (_, i) => [`d${i}`, { $ref: `#/$defs/d${i + 1}` }])) },
      /more than 2000 subschemas/,
    ],
  ])('refuses %s', (_name, schema, reason) => {
    expect(refused(schema)).toMatch(reason);
  });
});

describe('nestedDeeperThan', () => {
  it('measures arrays and objects alike, without recursion', () => {
    expect(nestedDeeperThan({ a: [{ b: 1 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [{ b: {} }] }, 3)).toBe(true);
    expect(nestedDeeperThan(JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`), 512)).toBe(true);
    expect(nestedDeeperThan('text', 0)).toBe(false);
  });
});
