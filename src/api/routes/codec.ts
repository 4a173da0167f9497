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
 * what it is sent, so it needs no key; browsers reach it across origins, hence CORS.
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

export function codecRoute(): Middleware<ApiState> {
  const codec = new GzipPayloadCodec();
  return async (ctx, next) => {
    const match = /^\/codec\/(decode|encode)$/.exec(ctx.path);
    if (!match) return next();
    ctx.set('access-control-allow-origin', ctx.get('origin') || '*');
    ctx.set('access-control-allow-headers', 'content-type, x-namespace, authorization');
    ctx.set('access-control-allow-methods', 'POST, OPTIONS');
    ctx.set('vary', 'origin');
    if (ctx.method === 'OPTIONS') {
      ctx.status = 204;
      return;
    }
    if (ctx.method !== 'POST') return next();
    let body: { payloads?: JsonPayload[] };
    try {
      body = JSON.parse(await getRawBody(ctx.req, { limit: LIMIT_BYTES, encoding: 'utf-8' })) as { payloads?: JsonPayload[] };
    } catch {
      throw new ServiceError('invalid_json');
    }
    const payloads = (body.payloads ?? []).map(fromJson);
    const result = match[1] === 'decode' ? await codec.decode(payloads) : await codec.encode(payloads);
    ctx.body = { payloads: result.map(toJson) };
  };
}
