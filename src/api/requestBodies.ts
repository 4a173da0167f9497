import { ERRORS, ServiceError } from '../errors';
import type { ResearchMode } from '../events/research';
import { compileSchema, type JsonSchema } from '../structured/schema';
import { CONTENT_SCOPES, EFFORTS } from '../types';
import { choice, flag, geoTarget, requestBody, requiredText, wholeNumber, type BodyField } from './requestBody';

/**
 * The JSON bodies of the operations (spec §2), each declared once: the routes read requests
 * with them and the API description (GET /v1/openapi.json) documents them from them.
 */

/** Spec §8. */
export const MAX_INSTRUCTIONS = 20_000;
/** Spec §8. */
export const MAX_QUERY = 10_000;
/** `fetch_timeout` in seconds; the spec shows no bounds, and a page fetch's activity allows a minute. */
const MAX_FETCH_TIMEOUT_S = 60;
const MODES: readonly ResearchMode[] = ['fast', 'balanced'];

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
      const reason = err instanceof Error ? err.message : String(err);
      throw new ServiceError('json_schema_invalid', reason, `${ERRORS.json_schema_invalid.message}: ${reason}`);
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
  fetch_timeout: wholeNumber({
    min: 1,
    max: MAX_FETCH_TIMEOUT_S,
    unit: 'seconds',
    description: 'Time limit of each page download or render, in seconds.',
  }),
  mode: choice(
    MODES,
    'fast',
    '`fast`: one round of searches, quick answers. `balanced`: up to three rounds, following links.',
  ),
  nocache: flag(false, 'Bypass the cache of fetched pages and search again.'),
});
