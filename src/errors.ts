/**
 * Every failure the service reports, by code. Activities raise these codes as the `type`
 * of an ApplicationFailure; the API maps a code to the spec's status and exact message here
 * and nowhere else (spec §7).
 */
export const ERRORS = {
  unauthorized: { status: 401, message: 'invalid or missing API key' },
  insufficient_credits: { status: 402, message: 'insufficient credits' },
  rate_limited: { status: 429, message: 'rate limit exceeded' },
  invalid_json: { status: 400, message: 'invalid JSON request body' },
  invalid_field: { status: 400, message: 'invalid request' },
  url_required: { status: 400, message: 'url is required' },
  json_schema_required: { status: 400, message: 'json schema is required' },
  json_schema_invalid: { status: 400, message: 'json schema must be a valid object' },
  instructions_required: { status: 400, message: 'instructions are required' },
  instructions_too_long: { status: 400, message: 'instructions must be at most 20000 characters' },
  body_too_large: { status: 413, message: 'request body is too large' },
  decoded_too_large: { status: 413, message: 'decoded payloads are too large' },
  request_timeout: { status: 408, message: 'request timed out: headers and body must arrive in time' },
  headers_too_large: { status: 431, message: 'request headers are too large' },
  malformed_request: { status: 400, message: 'malformed HTTP request' },
  not_found: { status: 404, message: 'not found' },
  method_not_allowed: { status: 405, message: 'method not allowed' },
  geo_unavailable: { status: 400, message: 'geo_target.country is not available: no proxy is configured for it' },
  url_invalid: { status: 422, message: 'url is invalid' },
  internal_address: { status: 422, message: 'access to internal resources is not allowed' },
  fetch_failed: { status: 500, message: 'failed to fetch URL' },
  conversion_failed: { status: 500, message: 'failed to convert HTML to Markdown' },
  /**
   * Extract Markdown's answer to a page too big, too deep or too slow to read within the bounds:
   * the spec gives it the conversion's message, but unlike a conversion of ours that failed, the
   * page is the caller's choice, so its charge is kept as Extract JSON's `page_too_large` is.
   */
  page_too_large_to_convert: { status: 500, message: 'failed to convert HTML to Markdown' },
  page_too_large: { status: 500, message: 'web page is too large' },
  generation_failed: { status: 500, message: 'failed to generate JSON' },
  transform_failed: { status: 500, message: 'failed to transform data' },
  model_unavailable: { status: 503, message: 'the model is not configured' },
  query_required: { status: 400, message: 'query is required' },
  query_too_long: { status: 400, message: 'query must be at most 10000 characters' },
  research_unavailable: { status: 503, message: 'research service is not configured' },
  search_failed: { status: 500, message: 'failed to search the web' },
  no_sources: { status: 500, message: 'no web page could be read for this research' },
  research_failed: { status: 500, message: 'failed to complete the research' },
  task_required: { status: 400, message: 'task is required' },
  task_too_long: { status: 400, message: 'task must be at most 20000 characters' },
  max_iterations_range: { status: 400, message: 'maxIterations must be between 1 and 100' },
  max_validation_attempts_range: { status: 400, message: 'maxValidationAttempts must be between 1 and 10' },
  url_format: { status: 400, message: 'invalid URL format' },
  automate_unavailable: { status: 503, message: 'automate service is not configured' },
  input_fields_required: { status: 400, message: 'fields are required unless cancelled is true' },
  input_gone: { status: 410, message: 'the input request is expired, already answered or unknown' },
  input_unavailable: { status: 503, message: 'input service is not configured' },
  internal: { status: 500, message: 'internal server error' },
  unavailable: { status: 503, message: 'service unavailable' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/**
 * Failures a second try of the same request may not repeat: Temporal out of reach (`unavailable`,
 * sent with Retry-After), a rate limit (with Retry-After: when it lets the request through), a body
 * that came too slowly, and what we cannot tell apart. Every other
 * code is the same answer each time, so it says `x-should-retry: false`; the official clients
 * would otherwise run each 5xx and 408 three times, fetching the page again each time.
 */
export const RETRYABLE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'unavailable',
  'request_timeout',
  'internal',
  'rate_limited',
]);

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERRORS, value);
}

/**
 * A failure with a known code. `message` is what the caller sees; `detail` is for logs and
 * the Temporal UI only, so internals never leak into responses. `reason` is for the caller too,
 * beside a message the spec fixes word for word: what in their own request is wrong.
 */
export class ServiceError extends Error {
  readonly status: number;
  /** The HTTP status a fetched page answered with, when that is why the fetch failed. */
  httpStatus?: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail?: string,
    message?: string,
    readonly reason?: string,
  ) {
    super(message ?? ERRORS[code].message);
    this.name = 'ServiceError';
    this.status = ERRORS[code].status;
  }
}

/** A 429: the caller may try again in `retryAfterS` seconds (sent as Retry-After). */
export class RateLimitedError extends ServiceError {
  constructor(
    readonly retryAfterS: number,
    detail: string,
  ) {
    super('rate_limited', detail);
  }
}

/** A 400 naming the offending field, for wrong types and values in a request body. */
export function invalidField(message: string): ServiceError {
  return new ServiceError('invalid_field', undefined, message);
}

/**
 * Not caller-facing: a model call that cannot succeed (bad key, unknown model, invalid
 * request) or whose answers never met the schema. Workflows turn it into their operation's error.
 */
export const MODEL_FAILED = 'model_failed';

/** Not caller-facing: a model call that failed in a way another attempt may mend (a 5xx, a 429, no answer). */
export const MODEL_TRANSIENT = 'model_transient';
