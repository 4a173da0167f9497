import Router from '@koa/router';
import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import { codecAuth } from '../middleware/codecAuth';
import type { Payload } from '@temporalio/common';
import type { CodecSettings } from '../../config';
import { ServiceError } from '../../errors';
import { GzipPayloadCodec } from '../../payloadCodec';
import type { ApiState } from '../state';

/**
 * The remote codec the Temporal Web UI calls (POST /codec/decode and /codec/encode, Temporal's
 * codec server protocol: `{payloads: [{metadata: {k: base64}, data: base64}]}`), so compressed
 * results read as JSON in the UI. The embedded stack points its UI here, at `/codec/<secret>`
 * (see codecAuth); browsers reach it across origins (see crossOrigin).
 */

/** Large enough for any payload Temporal accepts. */
const LIMIT_BYTES = 16 * 1024 * 1024;

interface JsonPayload {
  metadata?: Record<string, string>;
  data?: string;
}

function fromJson(payload: JsonPayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) metadata[key] = Buffer.from(value, 'base64');
  return { metadata, data: payload.data === undefined ? undefined : Buffer.from(payload.data, 'base64') };
}

function toJson(payload: Payload): JsonPayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {})) metadata[key] = Buffer.from(value).toString('base64');
  return { metadata, data: payload.data ? Buffer.from(payload.data).toString('base64') : undefined };
}

function codecOperation(operation: 'decode' | 'encode'): Middleware<ApiState> {
  const codec = new GzipPayloadCodec();
  return async (ctx) => {
    let body: { payloads?: JsonPayload[] };
    try {
      body = JSON.parse(await getRawBody(ctx.req, { limit: LIMIT_BYTES, encoding: 'utf-8' })) as { payloads?: JsonPayload[] };
    } catch {
      throw new ServiceError('invalid_json');
    }
    const payloads = (body.payloads ?? []).map(fromJson);
    const result = operation === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
    ctx.body = { payloads: result.map(toJson) };
  };
}

export function codecRouter(keys: ReadonlyMap<string, string>, settings: CodecSettings): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/codec' });
  const auth = codecAuth(keys, settings.secret);
  for (const operation of ['decode', 'encode'] as const) {
    router.post(`/${operation}`, auth, codecOperation(operation));
    router.post(`/:secret/${operation}`, auth, codecOperation(operation));
  }
  return router;
}
