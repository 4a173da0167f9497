import { readFileSync } from 'node:fs';
import { generateTypeSchemas, TYPE_SCHEMAS_FILE } from '../support/apiTypeSchemas';

describe('the type schemas of the API description', () => {
  it('are those of the current TypeScript declarations (else run `npm run openapi:schemas`)', () => {
    const kept = JSON.parse(readFileSync(TYPE_SCHEMAS_FILE, 'utf8')) as unknown;
    expect(kept).toEqual(generateTypeSchemas());
  }, 30_000);
});
