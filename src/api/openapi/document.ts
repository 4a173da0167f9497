import { geoUnavailableMessage } from '../../operations/geo';
import type { BodyField, RequestBody } from '../requestBody/requestBody';
import {
  automateBody,
  automateInputBody,
  extractJsonBody,
  extractMarkdownBody,
  generateJsonBody,
  researchBody,
} from '../requestBody/requestBodies';
import { INVALID_LAST_EVENT_ID } from '../../events/sse';
import { errorResponses, type ErrorAnswer } from './errorAnswers';
import { eventComponents, streamComponentName } from './eventSchemas';
import typeSchemas from './typeSchemas.json';

/**
 * The OpenAPI 3.1 description of the API (spec §2, 4-7), served at GET /v1/openapi.json. Request
 * bodies come from the declarations the routes read them with (src/api/requestBody/requestBodies.ts);
 * responses and events from the schemas generated from their TypeScript types
 * (typeSchemas.json); errors from src/errors.ts. Automate's request bodies are written here from
 * spec §2.9-2.10 until its route declares them.
 */

type AnyBody = RequestBody<Record<string, BodyField<unknown>>>;

/** An OpenAPI document; its paths are read to serve only the routed operations. */
export type ApiDocument = Record<string, unknown> & { paths: Record<string, Record<string, unknown>> };

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const json = (schema: object, description: string) => ({
  description,
  content: { 'application/json': { schema } },
});

const requestBody = (name: string) => ({ required: true, content: { 'application/json': { schema: ref(name) } } });

const header = (description: string, schema: object = { type: 'string' }) => ({ description, schema });

const REQUEST_ID = header('The request id (the one sent in `x-request-id`, or a new one), for tracing in the log.');
const TRACE_ID = header(
  "The id to quote in a support request: the Temporal run id of the request's run, or the request id of an answer given before any run started.",
);
const WORKFLOW_ID = header(
  'The id of the Temporal workflow that served the request: `<organization>/<operation>/<ulid>`.',
);
const RUN_ID = header('The run id, to read the stream again at `GET /runs/{runId}/events`.');

/** Every POST: a body that is not a JSON object, no key, a slow or large request, and the spec's reserved statuses. */
const COMMON_POST: ErrorAnswer[] = [
  'invalid_json',
  'unauthorized',
  402,
  'request_timeout',
  'body_too_large',
  'rate_limited',
];

/** The 400 messages of a body: those of its fields, and a body that is not a JSON object. */
const bodyErrors = (body: AnyBody): ErrorAnswer[] => body.errors().map((message) => [400, message]);

const PAGE_ERRORS: ErrorAnswer[] = [
  [400, geoUnavailableMessage('FR')],
  'url_invalid',
  'internal_address',
  'fetch_failed',
];

function eventStream(stream: 'research' | 'automate', description: string) {
  return {
    description,
    headers: { 'x-run-id': RUN_ID, 'x-workflow-id': WORKFLOW_ID, 'x-request-id': REQUEST_ID, 'x-trace-id': TRACE_ID },
    content: { 'text/event-stream': { schema: ref(streamComponentName(stream)) } },
  };
}

const STREAM_NOTE =
  'The answer is a stream of Server-Sent Events: for each event an `id:` line, an `event:` line with its type, a ' +
  '`data:` line with its JSON payload, and a blank line; comment lines (`: keep-alive`), never followed by a ' +
  'blank line, keep idle connections open. Failures before the stream starts get a status and a JSON error body; a failure during the stream is ' +
  'its `error` event, and nothing follows it.';

const ANY_OBJECT = { type: 'object', additionalProperties: true };

const SECONDS = { type: 'integer', minimum: 0 };

/**
 * The figures of the limit a request was counted against: its organization's requests per minute,
 * or, with a missing or unknown key, its address's failed authentications.
 */
const RATE_LIMIT_HEADERS = {
  'x-ratelimit-limit': header('Requests allowed in the current one-minute window.', SECONDS),
  'x-ratelimit-remaining': header('Requests left in the current window.', SECONDS),
  'x-ratelimit-reset': header('Seconds until the current window ends and the count starts again.', SECONDS),
};

/**
 * Adds the rate-limit headers to every answer of the operations that need a key, but a 408, which
 * the HTTP server sends before any of them is counted; and `Retry-After` to a 429.
 */
function withRateLimitHeaders(paths: Record<string, Record<string, unknown>>): void {
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item) as { security?: unknown[]; responses?: Record<string, object> }[]) {
      if (!operation.responses || operation.security?.length === 0) continue;
      for (const [status, response] of Object.entries(operation.responses)) {
        if (status === '408') continue;
        const answer = response as { headers?: Record<string, object> };
        answer.headers = {
          ...answer.headers,
          ...RATE_LIMIT_HEADERS,
          ...(status === '429'
            ? { 'retry-after': header('Seconds to wait before trying again.', { type: 'integer', minimum: 1 }) }
            : {}),
        };
      }
    }
  }
}

function buildDocument(): ApiDocument {
  const paths = {
    '/extract/markdown': {
      post: {
        operationId: 'extractMarkdown',
        summary: 'Extract Markdown',
        description:
          'Fetches the URL and converts its HTML or PDF content to Markdown, with the page metadata as YAML front ' +
          'matter or, with `metadata: true`, in its own field. Results are cached per organization for ' +
          '`CACHE_TTL_SECONDS`.',
        requestBody: requestBody('ExtractMarkdownRequest'),
        responses: {
          '200': {
            ...json(ref('ExtractMarkdownResponse'), 'The Markdown.'),
            headers: {
              'x-cache': header(
                '`hit` when answered from the cache, `miss` when fetched; absent with `CACHE_SCOPE=global`.',
                {
                  type: 'string',
                  enum: ['hit', 'miss'],
                },
              ),
              'x-workflow-id': WORKFLOW_ID,
              'x-request-id': REQUEST_ID,
              'x-trace-id': TRACE_ID,
            },
          },
          ...errorResponses([
            ...COMMON_POST,
            ...bodyErrors(extractMarkdownBody),
            ...PAGE_ERRORS,
            'conversion_failed',
            'internal',
          ]),
        },
      },
    },
    '/extract/json': {
      post: {
        operationId: 'extractJson',
        summary: 'Extract JSON',
        description: 'Fetches the URL and extracts data matching the given JSON Schema, with the configured model.',
        requestBody: requestBody('ExtractJsonRequest'),
        responses: {
          '200': json(ANY_OBJECT, 'An object that matches `json_schema`.'),
          ...errorResponses([
            ...COMMON_POST,
            ...bodyErrors(extractJsonBody),
            ...PAGE_ERRORS,
            'page_too_large',
            'generation_failed',
            'internal',
            503,
          ]),
        },
      },
    },
    '/generate/json': {
      post: {
        operationId: 'generateJson',
        summary: 'Generate JSON',
        description:
          'Fetches the URL and transforms its content following the instructions into the given JSON Schema.',
        requestBody: requestBody('GenerateJsonRequest'),
        responses: {
          '200': json(ANY_OBJECT, 'An object that matches `json_schema`.'),
          ...errorResponses([
            ...COMMON_POST,
            ...bodyErrors(generateJsonBody),
            ...PAGE_ERRORS,
            'page_too_large',
            'transform_failed',
            'internal',
            503,
          ]),
        },
      },
    },
    '/research': {
      post: {
        operationId: 'research',
        summary: 'Research',
        description: `Searches the web, reads and analyzes pages and writes a report citing them. ${STREAM_NOTE}`,
        requestBody: requestBody('ResearchRequest'),
        responses: {
          '200': eventStream('research', 'The events of the research run, ending with `complete` or `error`.'),
          ...errorResponses([...COMMON_POST, ...bodyErrors(researchBody), 'internal', 'research_unavailable']),
        },
      },
    },
    '/automate': {
      post: {
        operationId: 'automate',
        summary: 'Automate',
        description: `Runs a browser task described in natural language. ${STREAM_NOTE}`,
        requestBody: requestBody('AutomateRequest'),
        responses: {
          '200': eventStream('automate', 'The events of the task, ending with `done` or `error`.'),
          ...errorResponses([
            ...COMMON_POST,
            ...bodyErrors(automateBody),
            [400, geoUnavailableMessage('FR')],
            'internal_address',
            'internal',
            'automate_unavailable',
          ]),
        },
      },
    },
    '/automate/{requestID}/input': {
      post: {
        operationId: 'automateInput',
        summary: 'Submit Input Response',
        description:
          'Answers an `interactive:form_data:request` (or `:error`) event of a running Automate task, before it ' +
          'expires (2 minutes by default). Fire and forget: 202 means the answer was accepted and forwarded.',
        parameters: [
          {
            name: 'requestID',
            in: 'path',
            required: true,
            description: 'The `requestId` of the input request event.',
            schema: { type: 'string' },
          },
        ],
        requestBody: requestBody('AutomateInputRequest'),
        responses: {
          '202': json(ref('AutomateInputResponse'), 'The answer was accepted and forwarded to the task.'),
          ...errorResponses([
            ...COMMON_POST,
            ...bodyErrors(automateInputBody),
            'input_gone',
            'internal',
            'input_unavailable',
          ]),
        },
      },
    },
    '/runs/{runId}/events': {
      get: {
        operationId: 'runEvents',
        summary: 'Read a stream again',
        description:
          'The events of a Research or Automate run after the one named by `Last-Event-ID` (all of them ' +
          'without it), then the live ones, on any API process and after the run has ended.',
        parameters: [
          {
            name: 'runId',
            in: 'path',
            required: true,
            description: 'The `x-run-id` of the stream.',
            schema: { type: 'string', pattern: '^(research|automate)-[0-9A-HJKMNP-TV-Z]{26}$' },
          },
          {
            name: 'Last-Event-ID',
            in: 'header',
            required: false,
            description: "The id of the last event the client has; one past the run's last event is refused with 400.",
            schema: { type: 'string', pattern: '^[0-9]{1,15}$' },
          },
        ],
        responses: {
          '200': {
            description: 'The run events, as its operation streams them.',
            headers: {
              'x-run-id': RUN_ID,
              'x-workflow-id': WORKFLOW_ID,
              'x-request-id': REQUEST_ID,
              'x-trace-id': TRACE_ID,
            },
            content: {
              'text/event-stream': {
                schema: { oneOf: [ref(streamComponentName('research')), ref(streamComponentName('automate'))] },
              },
            },
          },
          ...errorResponses([[400, INVALID_LAST_EVENT_ID], 'unauthorized', 'not_found', 'rate_limited', 'internal']),
        },
      },
    },
    '/openapi.json': {
      get: {
        operationId: 'openApi',
        summary: 'This description',
        description: 'Public, like any API documentation: it needs no key.',
        security: [],
        responses: { '200': json(ANY_OBJECT, 'The OpenAPI 3.1 description of the API.') },
      },
    },
    '/healthz': {
      servers: [{ url: '/', description: 'Outside the versioned API.' }],
      get: {
        operationId: 'health',
        summary: 'Health check',
        description: 'Answers while the API process serves requests; needs no key.',
        security: [],
        responses: {
          '200': json(
            {
              type: 'object',
              required: ['status'],
              properties: { status: { const: 'ok' } },
              additionalProperties: false,
            },
            'The API process is up.',
          ),
        },
      },
    },
  };

  withRateLimitHeaders(paths);
  return {
    openapi: '3.1.0',
    info: {
      title: 'webloom',
      version: '1.0',
      description:
        'A self-hostable web content service: Markdown and JSON extraction, AI research and browser automation, ' +
        'with the interface of the hosted Tabstack API (interface version 1.0), so its official clients work ' +
        'against this base URL. Every request carries an API key as a bearer token. Errors are ' +
        '`{"error": "<message>"}`. In request bodies, `null` for an optional field is the same as leaving it ' +
        'out. The Temporal codec endpoint (`/codec`) serves the Temporal Web UI and CLI and is not part of ' +
        'this API. The same operations are served to AI assistants as MCP tools at `/mcp` (Model Context ' +
        'Protocol, Streamable HTTP), with the same keys, credits and limits; see the README.',
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    servers: [{ url: '/v1', description: 'This server.' }],
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description:
            'An API key (`wl_live_...`), made by `npm run admin -- key create ORG` and kept hashed in the store; ' +
            'keys listed in `API_KEYS` are added to the store at start, and `npm start` makes a development key. ' +
            'Each key belongs to an organization, which sees only its own runs and cache and pays for its runs in ' +
            'credits. A revoked key is refused within a second.',
        },
      },
      schemas: {
        ErrorResponse: {
          type: 'object',
          required: ['error'],
          properties: {
            error: { type: 'string', description: 'What went wrong, for people; the exact text of the spec.' },
            reason: {
              type: 'string',
              description: 'Why, where the message cannot say: what the schema compiler found in a `json_schema`.',
            },
          },
          additionalProperties: false,
        },
        ExtractMarkdownRequest: extractMarkdownBody.schema,
        ExtractJsonRequest: extractJsonBody.schema,
        GenerateJsonRequest: generateJsonBody.schema,
        ResearchRequest: researchBody.schema,
        AutomateRequest: automateBody.schema,
        AutomateInputRequest: automateInputBody.schema,
        AutomateInputResponse: {
          type: 'object',
          properties: { status: { type: 'string', description: 'A status word for the accepted submission.' } },
        },
        ...typeSchemas.schemas,
        ...eventComponents(),
      },
    },
  };
}

let built: ApiDocument | undefined;

/** The whole description, every operation included, built once. */
export function apiDocument(): ApiDocument {
  built ??= buildDocument();
  return built;
}
