import validateDraft07 from 'playground:draft07';
import validateDraft2020 from 'playground:draft2020';
import { checkSchemaLimits, SchemaRefused } from '../structured/schemaLimits';

export type SchemaVerdict =
  { ok: true; schema: Record<string, unknown>; draft: string } | { ok: false; errors: string[] };

/** The draft the API reads a schema as (src/structured/schema.ts): draft-07 when it says so, else 2020-12. */
const DRAFT_07 = /draft-0[4-7]/;
const MAX_ERRORS = 8;

/**
 * What the API would say of the schema, before sending it: JSON that parses to an object, within
 * the API's limits (the same code), and valid against its draft's meta-schema.
 */
export function checkSchema(text: string): SchemaVerdict {
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    return { ok: false, errors: [`Not JSON: ${(err as Error).message}`] };
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema))
    return { ok: false, errors: ['A JSON schema here is a JSON object.'] };
  const node = schema as Record<string, unknown>;
  try {
    checkSchemaLimits(node);
  } catch (err) {
    if (err instanceof SchemaRefused) return { ok: false, errors: [err.message] };
    throw err;
  }
  const draft07 = typeof node.$schema === 'string' && DRAFT_07.test(node.$schema);
  const validate = draft07 ? validateDraft07 : validateDraft2020;
  if (validate(node)) return { ok: true, schema: node, draft: draft07 ? 'draft-07' : 'draft 2020-12' };
  const errors = (validate.errors ?? [])
    .slice(0, MAX_ERRORS)
    .map((error) => `${error.instancePath || '(root)'} ${error.message ?? 'is invalid'}`);
  return { ok: false, errors: [...new Set(errors)] };
}
