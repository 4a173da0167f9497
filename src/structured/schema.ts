import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { RE2JS } from 're2js';
import type { PageMetadata } from '../types';
import { checkSchemaLimits, MAX_VALUE_DEPTH, nestedDeeperThan } from './schemaLimits';

/**
 * The caller's JSON Schema: compiled by a real validator (draft 2020-12, or draft-07 when the
 * schema says so), used to check every model answer, and read for the hints that shape the
 * request to the model.
 */

export type JsonSchema = Record<string, unknown>;

const DRAFT_07 = /draft-0[4-7]/;

/**
 * `pattern` and `patternProperties` run on RE2 (linear time), not V8's backtracking engine: a
 * caller's `^(a+)+$` against an answer a hostile page steered the model into writing would
 * otherwise hold the model worker for minutes. Patterns RE2 cannot run (lookaround,
 * backreferences) make the schema fail to compile, with that reason.
 */
const re2: RegExpEngine = Object.assign((pattern: string) => RE2JS.compile(pattern), { code: 'RE2JS.compile' });

function makeAjv(draft07: boolean): Ajv {
  const options = { allErrors: true, strict: false, validateFormats: true, code: { regExp: re2 } };
  const ajv = draft07 ? new Ajv(options) : new Ajv2020(options);
  addFormats(ajv);
  return ajv;
}

const validators = { draft07: makeAjv(true), draft2020: makeAjv(false) };

/** Checks a value against the schema; the errors found, empty when the value matches. */
export type SchemaCheck = (value: unknown) => string[];

/**
 * Throws with the reason when the schema is beyond our limits (SchemaRefused) or does not
 * compile. The check it returns reports data too deeply nested to validate as an error of the
 * value rather than crashing: a model answer may nest as deep as it likes.
 */
export function compileSchema(schema: JsonSchema): SchemaCheck {
  checkSchemaLimits(schema);
  const draft07 = typeof schema.$schema === 'string' && DRAFT_07.test(schema.$schema);
  const ajv = draft07 ? validators.draft07 : validators.draft2020;
  // Any other declared draft is read as 2020-12, which Ajv2020 only accepts undeclared.
  const compiled = draft07 ? schema : { ...schema };
  if (!draft07) delete compiled.$schema;
  let validate: ValidateFunction;
  try {
    validate = ajv.compile(compiled);
  } finally {
    // Ajv keeps every compiled schema (and its $id) for reuse; callers' schemas are one-off.
    ajv.removeSchema(compiled);
  }
  return (value) => {
    if (nestedDeeperThan(value, MAX_VALUE_DEPTH)) return [`(root) is nested deeper than ${MAX_VALUE_DEPTH} levels`];
    try {
      return validate(value) ? [] : describeErrors(validate.errors);
    } catch (err) {
      if (err instanceof RangeError) return ['(root) is nested too deeply to check'];
      throw err;
    }
  };
}

function describeErrors(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? [])
    .slice(0, 20)
    .map(
      (e) =>
        `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? `: ${String(e.params.additionalProperty)}` : ''}`,
    );
}

/**
 * OpenAI's strict structured output accepts only schemas where every object lists all its
 * properties as required and forbids others. Strict is asked for only when that already holds.
 */
export function strictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(strictCompatible);
  if (!schema || typeof schema !== 'object') return true;
  const node = schema as Record<string, unknown>;
  if (node.type === 'object' || node.properties) {
    const properties = Object.keys((node.properties as Record<string, unknown>) ?? {});
    const required = new Set(Array.isArray(node.required) ? (node.required as string[]) : []);
    if (node.additionalProperties !== false || !properties.every((p) => required.has(p))) return false;
  }
  return Object.entries(node).every(
    ([key, value]) => key === 'enum' || key === 'const' || key === 'default' || strictCompatible(value),
  );
}

/** Spec §2.6: a `page_title` or `favicon` property the model left empty is filled from the page. */
export function fillFromMetadata(value: unknown, schema: JsonSchema, metadata: PageMetadata): unknown {
  const properties = schema.properties as Record<string, unknown> | undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value) || !properties) return value;
  const filled = { ...(value as Record<string, unknown>) };
  const empty = (v: unknown) => v === undefined || v === null || v === '';
  if ('page_title' in properties && empty(filled.page_title) && metadata.title) filled.page_title = metadata.title;
  if ('favicon' in properties && empty(filled.favicon) && metadata.favicon) filled.favicon = metadata.favicon;
  return filled;
}
