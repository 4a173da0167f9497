/**
 * How a model call failed, as far as trying again goes: a transient failure (rate limit, server
 * error, timeout, broken connection) may succeed later, after `retryAfterMs` when the server said
 * so; any other (bad key, unknown model, invalid request) never will.
 */
export class ModelError extends Error {
  override readonly name = 'ModelError';

  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs?: number,
  ) {
    super(message);
  }
}
