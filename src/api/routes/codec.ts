import type { IncomingMessage } from 'node:http';
import Router from '@koa/router';
import getRawBody from 'raw-body';
import type { Middleware } from 'koa';
import type { Payload } from '@temporalio/common';
import type { CodecSettings, PayloadKeys } from '../../config';
import { requirePayloadKeys } from '../../temporal/payloadKeys';
import { invalidField, ServiceError } from '../../errors';
import {
  decodePayload,
  DecodedSizeError,
  ServicePayloadCodec,
  UndecryptablePayloadError,
} from '../../temporal/payloadCodec';
import type { Billing } from '../../billing/billing';
import { codecAuth } from '../middleware/codecAuth';
import type { ApiState } from '../state';

/**
 * The remote codec the Temporal Web UI calls (POST /codec/decode and /codec/encode, Temporal's
 * codec server protocol: `{payloads: [{metadata: {k: base64}, data: base64}]}`), so encrypted
 * and compressed payloads read as JSON in the UI. The embedded stack points its UI here, at
 * `/codec/<secret>` (see codecAuth); browsers reach it across origins (see crossOrigin). What a
 * request may decompress to is capped per payload and per request (CODEC_MAX_PAYLOAD_BYTES,
 * CODEC_MAX_REQUEST_BYTES): a megabyte of gzip can inflate to a gigabyte.
 */

/** Large enough for the payloads of any history event: Temporal refuses payloads over 2 MB by default. */
const BODY_LIMIT_BYTES = 16 * 1024 * 1024;

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
  for (const [key, value] of Object.entries(payload.metadata ?? {}))
    metadata[key] = Buffer.from(value).toString('base64');
  return { metadata, data: payload.data ? Buffer.from(payload.data).toString('base64') : undefined };
}

async function readPayloads(req: IncomingMessage): Promise<Payload[]> {
  let text: string;
  try {
    text = await getRawBody(req, { limit: BODY_LIMIT_BYTES, encoding: 'utf-8' });
  } catch (err) {
    if ((err as { type?: string }).type === 'entity.too.large') throw new ServiceError('body_too_large');
    throw new ServiceError('invalid_json', err instanceof Error ? err.message : String(err));
  }
  try {
    return ((JSON.parse(text) as { payloads?: JsonPayload[] }).payloads ?? []).map(fromJson);
  } catch {
    throw new ServiceError('invalid_json');
  }
}

/** Decodes one payload after another, each within what the request has left of its cap. */
async function decodeWithin(payloads: Payload[], keys: PayloadKeys, limits: CodecSettings): Promise<Payload[]> {
  const tooLarge = () =>
    new ServiceError(
      'decoded_too_large',
      undefined,
      `decoded payloads are too large: at most ${limits.maxPayloadBytes} bytes each and ${limits.maxRequestBytes} per request`,
    );
  let remaining = limits.maxRequestBytes;
  const decoded: Payload[] = [];
  for (const [index, payload] of payloads.entries()) {
    let result: Payload;
    try {
      result = await decodePayload(payload, keys, Math.max(1, Math.min(limits.maxPayloadBytes, remaining)));
    } catch (err) {
      if (err instanceof DecodedSizeError) throw tooLarge();
      if (err instanceof UndecryptablePayloadError)
        throw invalidField(`payloads[${index}] cannot be decrypted: ${err.message}`);
      throw invalidField(`payloads[${index}].data is not valid gzip`);
    }
    remaining -= result.data?.byteLength ?? 0;
    if (remaining < 0) throw tooLarge();
    decoded.push(result);
  }
  return decoded;
}

function decodeRoute(keys: PayloadKeys, limits: CodecSettings): Middleware<ApiState> {
  return async (ctx) => {
    const decoded = await decodeWithin(await readPayloads(ctx.req), keys, limits);
    ctx.body = { payloads: decoded.map(toJson) };
  };
}

function encodeRoute(keys: PayloadKeys): Middleware<ApiState> {
  const codec = new ServicePayloadCodec(keys);
  return async (ctx) => {
    const encoded = await codec.encode(await readPayloads(ctx.req));
    ctx.body = { payloads: encoded.map(toJson) };
  };
}

export function codecRouter(keys: Pick<Billing, 'organizationOf'>, settings: CodecSettings): Router<ApiState> {
  const router = new Router<ApiState>({ prefix: '/codec' });
  const auth = codecAuth(keys, settings.secret);
  const payloadKeys = requirePayloadKeys(settings);
  const decode = decodeRoute(payloadKeys, settings);
  const encode = encodeRoute(payloadKeys);
  for (const prefix of ['', '/:secret']) {
    router.post(`${prefix}/decode`, auth, decode);
    router.post(`${prefix}/encode`, auth, encode);
  }
  return router;
}
