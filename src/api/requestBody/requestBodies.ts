import { ERRORS, invalidField, ServiceError } from '../../errors';
import type { ResearchMode } from '../../events/research';
import { compileSchema, type JsonSchema } from '../../structured/schema';
import { CONTENT_SCOPES, EFFORTS } from '../../types';
import { cappedNumber, choice, flag, geoTarget, requestBody, requiredText, type BodyField } from './requestBody';
import { fieldMessages } from './requestFields';

/**
 * The JSON bodies of the operations (spec §2), each declared once: the routes read requests
 * with them and the API description (GET /v1/openapi.json) documents them from them.
 */

/** Spec §8. */
export const MAX_INSTRUCTIONS = 20_000;
/** Spec §8. */
export const MAX_QUERY = 10_000;
/** `fetch_timeout` in seconds; the spec shows no bounds. The page activities get it plus their reading's time. */
const MAX_FETCH_TIMEOUT_S = 60;
const MODES: readonly ResearchMode[] = ['fast', 'balanced'];
/** The compiler's account of a schema it refused can quote the schema; the caller has it already. */
const MAX_REASON = 1000;

const url = (description: string) => requiredText('url_required', { description, format: 'uri' });

const effort = choice(
  EFFORTS,
  'standard',
  'Fetch effort. `min`: one plain fetch, no fallback (about 1-5 s). `standard`: retries, and a browser when the ' +
    'page is blocked or drawn by script (about 3-15 s). `max`: full browser rendering for JS-heavy sites ' +
    '(about 15-60 s).',
);

const geo = geoTarget(
  'Geotargeting: the page is fetched through the proxy configured for this country. ' +
    'A country without one is refused with 400.',
);

const nocache = flag(false, 'Bypass the cache and force fresh retrieval.');

/** Spec §2.6: a JSON Schema object that compiles (draft 2020-12, or draft-07 when it says so), within our limits. */
const jsonSchema = (description: string): BodyField<JsonSchema> => ({
  required: true,
  schema: { type: 'object', description },
  errors: () => [ERRORS.json_schema_required.message, ERRORS.json_schema_invalid.message],
  read(_fields, name, body) {
    const schema = body[name];
    if (schema === undefined || schema === null) throw new ServiceError('json_schema_required');
    if (typeof schema !== 'object' || Array.isArray(schema)) throw new ServiceError('json_schema_invalid');
    try {
      compileSchema(schema as JsonSchema);
    } catch (err) {
      // The message is the spec's, exact (spec 7.3, 7.4); what the compiler found goes beside it.
      const reason = (err instanceof Error ? err.message : String(err)).slice(0, MAX_REASON);
      throw new ServiceError('json_schema_invalid', reason, undefined, reason);
    }
    return schema as JsonSchema;
  },
});

/** Spec §2.3. */
export const extractMarkdownBody = requestBody({
  url: url('URL to fetch and convert.'),
  content: choice(
    CONTENT_SCOPES,
    'main',
    '`main`: the main article content. `full`: the whole page, including navigation, footer and links.',
  ),
  effort,
  geo_target: geo,
  metadata: flag(
    false,
    'When true, Open Graph and HTML metadata come in a separate `metadata` field; otherwise they are a YAML ' +
      'front matter block at the top of `content`.',
  ),
  nocache,
});

const extractSchema = jsonSchema(
  'JSON Schema of the data to extract. A property named `page_title` or `favicon` is filled from the page ' +
    'metadata when the model leaves it empty.',
);

/** The JSON operations keep no cache: `nocache` is checked for its type and changes nothing. */
const alwaysFresh = flag(false, 'Accepted as the official clients send it; every request fetches the page afresh.');

/** Spec §2.6. */
export const extractJsonBody = requestBody({
  url: url('URL to fetch and extract from.'),
  json_schema: extractSchema,
  nocache: alwaysFresh,
  effort,
  geo_target: geo,
});

/** Spec §2.7. */
export const generateJsonBody = requestBody({
  url: url('URL to fetch content from.'),
  json_schema: jsonSchema('JSON Schema of the transformed output.'),
  instructions: requiredText('instructions_required', {
    description: 'How to transform the data. At most 20,000 characters.',
    maxLength: { limit: MAX_INSTRUCTIONS, code: 'instructions_too_long' },
  }),
  nocache: alwaysFresh,
  effort,
  geo_target: geo,
});

/** Spec §2.8; `mode` is `fast` unless asked, as the official client documents. */
export const researchBody = requestBody({
  query: requiredText('query_required', {
    description: 'The research question. At most 10,000 characters.',
    maxLength: { limit: MAX_QUERY, code: 'query_too_long' },
  }),
  fetch_timeout: cappedNumber({
    ceiling: MAX_FETCH_TIMEOUT_S,
    unit: 'seconds',
    description: `Time limit of each page download or render, in seconds; more than ${MAX_FETCH_TIMEOUT_S} reads as ${MAX_FETCH_TIMEOUT_S}.`,
  }),
  mode: choice(
    MODES,
    'fast',
    '`fast`: one round of searches, quick answers. `balanced`: up to three rounds, following links.',
  ),
  nocache: flag(false, 'Bypass the cache of fetched pages and search again.'),
});

/** Bounds the spec leaves open, so one request cannot fill a run's history. */
export const MAX_TASK = 20_000;
const MAX_GUARDRAILS = 20_000;
const MAX_DATA_CHARS = 64 * 1024;
/**
 * The workflow classifies every value of `data` and names it by its key path, in its
 * constructor, on every replay: these keep that work to a fraction of a second (a constructor past
 * 5 s is retried without end) and the paths short.
 */
const MAX_DATA_DEPTH = 32;
const MAX_DATA_VALUES = 2_000;
const MAX_DATA_KEY = 256;
const MAX_TRUSTED_HOSTS = 50;
const MAX_INPUT_FIELDS = 100;
const MAX_INPUT_VALUE = 10_000;
const HOSTNAME =
  /^\.?(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$|^\[?[0-9a-f:.]+\]?$/i;

const given = (value: unknown) => value !== undefined && value !== null;

/** A number of spec §8, named in camelCase, that client libraries may send in snake_case (spec 2.9). */
const limit = (
  alias: string,
  bounds: { min: number; max: number; fallback: number },
  code: 'max_iterations_range' | 'max_validation_attempts_range',
  description: string,
): BodyField<number> => ({
  required: false,
  schema: {
    type: ['integer', 'null'],
    minimum: bounds.min,
    maximum: bounds.max,
    default: bounds.fallback,
    description: `${description} Also read as \`${alias}\`.`,
  },
  errors: () => [ERRORS[code].message],
  read(_fields, name, body) {
    const value = given(body[name]) ? body[name] : body[alias];
    if (!given(value)) return bounds.fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max)
      throw new ServiceError(code);
    return value;
  },
});

/** An optional string of at most `max` characters; blank counts as not given. */
const optionalText = (max: number, description: string): BodyField<string | undefined> => ({
  required: false,
  schema: { type: ['string', 'null'], maxLength: max, description },
  errors: (name) => [fieldMessages.notString(name), `${name} must be at most ${max} characters`],
  read(_fields, name, body) {
    const value = body[name];
    if (!given(value)) return undefined;
    if (typeof value !== 'string') throw invalidField(fieldMessages.notString(name));
    if (Array.from(value).length > max) throw invalidField(`${name} must be at most ${max} characters`);
    return value.trim() ? value : undefined;
  },
});

/** Spec 2.9 and 7.6: a starting URL, http or https; the address itself is checked by the route (422). */
const startUrl: BodyField<string | undefined> = {
  required: false,
  schema: {
    type: ['string', 'null'],
    format: 'uri',
    pattern: '^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]',
    description: 'Starting URL (http or https).',
  },
  errors: () => [ERRORS.url_format.message],
  read(_fields, name, body) {
    const value = body[name];
    if (!given(value)) return undefined;
    if (typeof value !== 'string') throw new ServiceError('url_format');
    try {
      const parsed = new URL(value);
      if ((parsed.protocol === 'http:' || parsed.protocol === 'https:') && parsed.hostname) return value;
    } catch {
      // Not a URL at all: the same answer as one of another scheme.
    }
    throw new ServiceError('url_format');
  },
};

const dataMessages = {
  depth: (name: string) => `${name} must be nested at most ${MAX_DATA_DEPTH} levels deep`,
  values: (name: string) => `${name} must hold at most ${MAX_DATA_VALUES} values`,
  key: (name: string) => `${name} keys must be at most ${MAX_DATA_KEY} characters`,
};

/**
 * What of `data`'s shape is out of bounds, if anything. Without recursion, so any depth the JSON
 * parser took is read, and before `JSON.stringify`, whose recursion a few thousand levels overflow.
 */
function dataShapeProblem(name: string, data: object): string | undefined {
  const pending: [unknown, number][] = [[data, 1]];
  let values = 0;
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [node, depth] = next;
    if (node === null || typeof node !== 'object') {
      if (++values > MAX_DATA_VALUES) return dataMessages.values(name);
      continue;
    }
    if (depth > MAX_DATA_DEPTH) return dataMessages.depth(name);
    for (const [key, child] of Object.entries(node)) {
      if (Array.from(key).length > MAX_DATA_KEY) return dataMessages.key(name);
      pending.push([child, depth + 1]);
    }
  }
  return undefined;
}

const taskData: BodyField<Record<string, unknown> | undefined> = {
  required: false,
  schema: {
    type: ['object', 'null'],
    description:
      'JSON data giving context for form filling or complex tasks. The agent names its values by path; ' +
      `credentials in it are never shown to the model. At most 65,536 characters of JSON, nested at most ` +
      `${MAX_DATA_DEPTH} levels deep, with at most ${MAX_DATA_VALUES} values and keys of at most ${MAX_DATA_KEY} ` +
      'characters.',
  },
  errors: (name) => [
    `${name} must be a JSON object`,
    dataMessages.depth(name),
    dataMessages.values(name),
    dataMessages.key(name),
    `${name} must be at most ${MAX_DATA_CHARS} characters of JSON`,
  ],
  read(_fields, name, body) {
    const value = body[name];
    if (!given(value)) return undefined;
    if (typeof value !== 'object' || Array.isArray(value)) throw invalidField(`${name} must be a JSON object`);
    const problem = dataShapeProblem(name, value);
    if (problem) throw invalidField(problem);
    if (JSON.stringify(value).length > MAX_DATA_CHARS)
      throw invalidField(`${name} must be at most ${MAX_DATA_CHARS} characters of JSON`);
    return value as Record<string, unknown>;
  },
};

const trustedHostnames: BodyField<string[]> = {
  required: false,
  schema: {
    type: ['array', 'null'],
    maxItems: MAX_TRUSTED_HOSTS,
    items: { type: 'string', pattern: HOSTNAME.source, examples: ['shop.example.com', '.example.com'] },
    examples: [['shop.example.com']],
    description:
      'Hosts on which the action firewall lets fills and submissions through (`.example.com` also covers its ' +
      'subdomains). On those hosts, page content can drive the agent to fill and submit any field, personal and ' +
      'credential data included.',
  },
  errors: (name) => [`${name} must be an array of at most ${MAX_TRUSTED_HOSTS} hostnames, such as shop.example.com`],
  read(_fields, name, body) {
    const value = body[name];
    if (!given(value)) return [];
    const problem = `${name} must be an array of at most ${MAX_TRUSTED_HOSTS} hostnames, such as shop.example.com`;
    if (!Array.isArray(value) || value.length > MAX_TRUSTED_HOSTS) throw invalidField(problem);
    return value.map((host: unknown) => {
      if (typeof host !== 'string' || !HOSTNAME.test(host)) throw invalidField(problem);
      return host.toLowerCase();
    });
  },
};

/** Spec 2.9, with its defaults applied. */
export const automateBody = requestBody({
  task: requiredText('task_required', {
    description: 'The task, in natural language. At most 20,000 characters.',
    maxLength: { limit: MAX_TASK, code: 'task_too_long' },
  }),
  url: startUrl,
  data: taskData,
  guardrails: optionalText(MAX_GUARDRAILS, 'Safety constraints for the execution, free text, in every step’s prompt.'),
  maxIterations: limit(
    'max_iterations',
    { min: 1, max: 100, fallback: 50 },
    'max_iterations_range',
    'Most agent steps.',
  ),
  maxValidationAttempts: limit(
    'max_validation_attempts',
    { min: 1, max: 10, fallback: 3 },
    'max_validation_attempts_range',
    'Most reviews of a final answer.',
  ),
  geo_target: geoTarget(
    "Geotargeting: the session's traffic goes through the proxy configured for this country. " +
      'A country without one is refused with 400.',
  ),
  interactive: flag(false, 'Lets the agent ask the caller for form data (see `POST /automate/{requestID}/input`).'),
  trusted_hostnames: trustedHostnames,
  unsafe_mode: flag(false, 'Turns the action firewall off entirely: only for trusted, controlled environments.'),
});

const inputFields: BodyField<{ ref: string; value: string }[] | undefined> = {
  required: false,
  schema: {
    type: ['array', 'null'],
    maxItems: MAX_INPUT_FIELDS,
    items: {
      type: 'object',
      required: ['ref', 'value'],
      properties: {
        ref: { type: 'string', minLength: 1, description: 'The field, as the input request named it.' },
        value: { type: 'string', maxLength: MAX_INPUT_VALUE },
      },
    },
    examples: [[{ ref: 'e18', value: '4111 1111 1111 1111' }]],
    description: 'Values for the requested form fields; required unless `cancelled` is true.',
  },
  errors: (name) => [
    `${name} must be an array of at most ${MAX_INPUT_FIELDS} {ref, value} objects`,
    `each field must be {ref, value} with string values of at most ${MAX_INPUT_VALUE} characters`,
  ],
  read(_fields, name, body) {
    const value = body[name];
    if (!given(value)) return undefined;
    if (!Array.isArray(value) || value.length > MAX_INPUT_FIELDS)
      throw invalidField(`${name} must be an array of at most ${MAX_INPUT_FIELDS} {ref, value} objects`);
    return value.map((entry: unknown) => {
      const { ref, value: text } = (entry ?? {}) as Record<string, unknown>;
      if (
        typeof ref !== 'string' ||
        ref === '' ||
        typeof text !== 'string' ||
        Array.from(text).length > MAX_INPUT_VALUE
      )
        throw invalidField(
          `each field must be {ref, value} with string values of at most ${MAX_INPUT_VALUE} characters`,
        );
      return { ref, value: text };
    });
  },
};

const inputBody = requestBody({
  cancelled: flag(false, 'True declines the input request.'),
  fields: inputFields,
});

/** Spec 2.10: `fields` unless `cancelled`. */
export const automateInputBody: typeof inputBody = {
  ...inputBody,
  schema: {
    ...inputBody.schema,
    anyOf: [
      { required: ['fields'], properties: { fields: { type: 'array' } } },
      { required: ['cancelled'], properties: { cancelled: { const: true } } },
    ],
  },
  errors: () => [...inputBody.errors(), ERRORS.input_fields_required.message],
  parse(body) {
    const answer = inputBody.parse(body);
    if (!answer.fields && !answer.cancelled) throw new ServiceError('input_fields_required');
    return answer;
  },
};
