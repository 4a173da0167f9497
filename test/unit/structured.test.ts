import { estimateTokens, fitToBudget, splitIntoChunks } from '../../src/structured/chunking';
import { mergeAnswers } from '../../src/structured/merge';
import { compileSchema, fillFromMetadata, strictCompatible } from '../../src/structured/schema';

describe('schema', () => {
  const product = {
    type: 'object',
    properties: { name: { type: 'string' }, url: { type: 'string', format: 'uri' } },
    required: ['name'],
  };

  it('validates with draft 2020-12 by default and names each error', () => {
    const check = compileSchema(product);
    expect(check({ name: 'Lamp', url: 'https://example.com/lamp' })).toEqual([]);
    expect(check({ url: 'not a url' })).toEqual([
      "(root) must have required property 'name'",
      '/url must match format "uri"',
    ]);
  });

  it('reads draft-07 schemas as draft-07', () => {
    const check = compileSchema({
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'array',
      items: [{ type: 'string' }],
      additionalItems: false,
    });
    expect(check(['a'])).toEqual([]);
    expect(check(['a', 'b'])).toEqual(['(root) must NOT have more than 1 items']);
  });

  it('throws with the reason on a schema that does not compile', () => {
    expect(() => compileSchema({ type: 'no-such-type' })).toThrow(/type/);
  });

  it('asks for strict output only when every object already requires all its properties and no others', () => {
    expect(strictCompatible(product)).toBe(false);
    expect(strictCompatible({ ...product, required: ['name', 'url'], additionalProperties: false })).toBe(true);
    const nested = {
      type: 'object',
      properties: { items: { type: 'array', items: product } },
      required: ['items'],
      additionalProperties: false,
    };
    expect(strictCompatible(nested)).toBe(false);
  });

  it('fills an empty page_title or favicon from the page metadata, nothing else', () => {
    const schema = {
      type: 'object',
      properties: { page_title: { type: 'string' }, favicon: { type: 'string' }, name: { type: 'string' } },
    };
    const metadata = { title: 'Harbour Lamp', favicon: 'https://shop.example/favicon.png' };
    expect(fillFromMetadata({ page_title: '', favicon: null, name: '' }, schema, metadata)).toEqual({
      page_title: 'Harbour Lamp',
      favicon: 'https://shop.example/favicon.png',
      name: '',
    });
    expect(fillFromMetadata({ page_title: 'Kept' }, schema, metadata)).toEqual({
      page_title: 'Kept',
      favicon: 'https://shop.example/favicon.png',
    });
  });
});

describe('chunking', () => {
  const paragraph = (i: number) => `Paragraph ${i}: ${'the quay and the boats. '.repeat(8)}`.trim();

  it('estimates four characters a token', () => {
    expect(estimateTokens('a'.repeat(401))).toBe(101);
  });

  it('splits at paragraph breaks, each chunk within the budget, nothing lost', () => {
    const text = Array.from({ length: 30 }, (_, i) => paragraph(i)).join('\n\n');
    const chunks = splitIntoChunks(text, 200);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks) expect(estimateTokens(chunk)).toBeLessThanOrEqual(200);
    expect(chunks.join('\n\n')).toBe(text);
  });

  it('cuts a paragraph longer than the budget', () => {
    const chunks = splitIntoChunks('x'.repeat(2000), 100);
    expect(chunks.map((chunk) => chunk.length)).toEqual([400, 400, 400, 400, 400]);
  });

  it('adds the rest of the page after the main content while the budget allows', () => {
    const main = `${paragraph(1)}\n\n${paragraph(2)}`;
    const full = `Menu\n\n${paragraph(1)}\n\nPrice: 42 EUR\n\n${paragraph(2)}\n\n${'Footer text. '.repeat(100)}`;
    expect(fitToBudget(main, full, 200)).toBe(`${main}\n\nMenu\n\nPrice: 42 EUR`);
    expect(fitToBudget(main, full, 10)).toBe(main);
  });
});

describe('mergeAnswers', () => {
  it('concatenates arrays without duplicates and takes other values from the fullest answer', () => {
    const merged = mergeAnswers([
      { title: '', boats: [{ name: 'Ada' }] },
      { title: 'Harbour fleet', owner: 'Council', boats: [{ name: 'Ada' }, { name: 'Brig' }] },
      { title: 'Fleet', boats: [{ name: 'Cutter' }] },
    ]);
    expect(merged).toEqual({
      title: 'Harbour fleet',
      owner: 'Council',
      boats: [{ name: 'Ada' }, { name: 'Brig' }, { name: 'Cutter' }],
    });
  });
});
