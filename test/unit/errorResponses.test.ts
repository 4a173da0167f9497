import type { Context } from 'koa';
import { errorResponses } from '../../src/api/middleware/errorResponses';
import { ServiceError as TemporalServiceError } from '@temporalio/client';
import { ServiceError } from '../../src/errors';
import { parseStructuredRequest } from '../../src/api/routes/structuredJson';
import type { ApiState } from '../../src/api/state';

/** What the middleware answers when the handler after it throws `err`. */
async function answer(err: unknown): Promise<{ status: number; body: unknown; headers: Record<string, string> }> {
  const headers: Record<string, string> = {};
  const ctx = {
    status: 404,
    body: undefined as unknown,
    state: {} as ApiState,
    set(name: string, value: string) {
      headers[name.toLowerCase()] = value;
    },
  };
  await errorResponses()(ctx as unknown as Context & { state: ApiState }, () => Promise.reject(err));
  return { status: ctx.status, body: ctx.body, headers };
}

/** The error a request body is refused with. */
function refusal(body: Record<string, unknown>): unknown {
  try {
    parseStructuredRequest(body, false);
  } catch (err) {
    return err;
  }
  throw new Error('the body was read');
}

describe('error responses', () => {
  it('answers a schema that does not compile with the spec message exactly, and the reason apart', async () => {
    const { status, body } = await answer(refusal({ url: 'https://example.com/', json_schema: { type: 'objekt' } }));
    expect(status).toBe(400);
    expect(body).toEqual({
      error: 'json schema must be a valid object',
      reason: expect.stringMatching(/^schema is invalid: data\/type must be equal to one of the allowed values/),
    });
  });

  it('gives no reason where the message says it all', async () => {
    const { body } = await answer(refusal({ url: 'https://example.com/', json_schema: [] }));
    expect(body).toEqual({ error: 'json schema must be a valid object' });
  });

  it('tells the clients not to retry an answer a retry would repeat', async () => {
    for (const code of ['fetch_failed', 'json_schema_invalid', 'research_unavailable', 'model_unavailable'] as const) {
      const { headers } = await answer(new ServiceError(code));
      expect({ code, headers }).toEqual({ code, headers: { 'x-should-retry': 'false' } });
    }
  });

  it('answers Temporal out of reach with 503 and Retry-After, and leaves retries to the client', async () => {
    // A gRPC error as @grpc/grpc-js throws it: code 14 is UNAVAILABLE.
    const grpc = Object.assign(new Error('14 UNAVAILABLE: No connection established'), {
      code: 14,
      details: 'No connection established',
      metadata: {},
    });
    const { status, body, headers } = await answer(
      new TemporalServiceError('Failed to start Workflow', { cause: grpc }),
    );
    expect({ status, body, headers }).toEqual({
      status: 503,
      body: { error: 'service unavailable' },
      headers: { 'retry-after': '10' },
    });
    expect((await answer(new Error('a bug'))).headers).toEqual({});
  });
});
