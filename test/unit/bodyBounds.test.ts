import { ServiceError } from '../../src/errors';
import { parseAutomateRequest, parseInputAnswer } from '../../src/api/routes/automate';
import { parseExtractMarkdown } from '../../src/api/routes/extractMarkdown';
import { parseResearchRequest } from '../../src/api/routes/research';
import { parseStructuredRequest } from '../../src/api/routes/structuredJson';
import { apiDocument } from '../../src/api/openapi/document';

/** A body the JSON parser reads at any depth: every field of it must come back 400 or be read, never throw. */
function nested(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let level = 1; level < depth; level++) value = level % 2 === 0 ? { a: value } : [value];
  return { a: value };
}

function outcome(parse: () => unknown): { read: true } | { status: number; error: string } {
  try {
    parse();
    return { read: true };
  } catch (err) {
    if (err instanceof ServiceError) return { status: err.status, error: err.message };
    throw err;
  }
}

const automate = (data: unknown) => () => parseAutomateRequest({ task: 'Find the price', data });

describe('automate data', () => {
  it('answers 400 for data nested 6,000 deep, saying how deep it may be', () => {
    let data: unknown = 'leaf';
    for (let level = 0; level < 6_000; level++) data = { a: data };
    expect(outcome(automate(data))).toEqual({ status: 400, error: 'data must be nested at most 32 levels deep' });
  });

  it('reads data 32 levels deep, not 33', () => {
    const deep = (levels: number) => {
      let data: Record<string, unknown> = { a: 1 };
      for (let level = 1; level < levels; level++) data = { a: data };
      return data;
    };
    expect(outcome(automate(deep(32)))).toEqual({ read: true });
    expect(outcome(automate(deep(33)))).toEqual({
      status: 400,
      error: 'data must be nested at most 32 levels deep',
    });
  });

  it('reads up to 2,000 values and keys of up to 256 characters', () => {
    const values = (count: number) => ({ list: Array.from({ length: count }, () => 1) });
    expect(outcome(automate(values(2_000)))).toEqual({ read: true });
    expect(outcome(automate(values(2_001)))).toEqual({ status: 400, error: 'data must hold at most 2000 values' });
    expect(outcome(automate({ ['é'.repeat(256)]: 1 }))).toEqual({ read: true });
    expect(outcome(automate({ ['é'.repeat(257)]: 1 }))).toEqual({
      status: 400,
      error: 'data keys must be at most 256 characters',
    });
  });

  it('still reads a 65,000-character value', () => {
    expect(outcome(automate({ notes: 'a'.repeat(65_000) }))).toEqual({ read: true });
  });
});

const BASES: Record<string, [Record<string, unknown>, (body: Record<string, unknown>) => unknown]> = {
  extractMarkdown: [{ url: 'https://example.com/' }, parseExtractMarkdown],
  extractJson: [
    { url: 'https://example.com/', json_schema: { type: 'object' } },
    (body) => parseStructuredRequest(body, false),
  ],
  generateJson: [
    { url: 'https://example.com/', json_schema: { type: 'object' }, instructions: 'Sum them' },
    (body) => parseStructuredRequest(body, true),
  ],
  research: [{ query: 'Who built the harbour?' }, parseResearchRequest],
  automate: [{ task: 'Find the price' }, parseAutomateRequest],
  automateInput: [{ fields: [] }, (body) => parseInputAnswer('request', body)],
};

const schemas = (apiDocument().components as { schemas: Record<string, { properties: object }> }).schemas;
const operations = Object.values(apiDocument().paths)
  .flatMap((item) => Object.values(item as object))
  .filter((operation): operation is { operationId: string; requestBody: { content: object } } =>
    Boolean(operation?.requestBody),
  );
const fields = operations.flatMap((operation) => {
  const ref = (operation.requestBody.content as Record<string, { schema: { $ref: string } }>)['application/json']!
    .schema.$ref;
  return Object.keys(schemas[ref.split('/').at(-1)!]!.properties).map((field) => [operation.operationId, field]);
});

it('knows every operation with a body', () => {
  expect(operations.map((operation) => operation.operationId).sort()).toEqual(Object.keys(BASES).sort());
});

it.each(fields)('%s answers 400 or reads a %s nested 100,000 deep, never fails', (operationId, field) => {
  const [base, parse] = BASES[operationId]!;
  const answer = outcome(() => parse({ ...base, [field]: nested(100_000) }));
  expect('read' in answer || answer.status === 400).toBe(true);
});
