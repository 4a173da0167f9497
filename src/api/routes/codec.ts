import Router from '@koa/router';
import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import type { Payload } from '@temporalio/common';
import { ServiceError } from '../../errors';
import { GzipPayloadCodec } from '../../payloadCodec';
import type { ApiState } from '../state';

/**
 * The remote codec the Temporal Web UI calls (POST /codec/decode and /codec/encode, Temporal's
 * codec server protocol: `{payloads: [{metadata: {k: base64}, data: base64}]}`), so compressed
 * results read as JSON in the UI. The embedded stack points its UI here. It only (de)compresses
 * what it is sent, so it needs no key; browsers reach it across origins (see crossOrigin).
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

export function codecRouter(): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/codec' });
  router.post('/decode', codecOperation('decode'));
  router.post('/encode', codecOperation('encode'));
  return router;
}
