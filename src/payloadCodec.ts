import { promisify } from 'node:util';
import { gunzip, gzipSync } from 'node:zlib';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';

/**
 * Large payloads (page Markdown, model input) are gzipped on their way to Temporal. Each one is
 * stored in history and passed through several hops (activity result, workflow task, workflow
 * result, the API's result poll); at tens of KB that handling was the larger part of Temporal's
 * cost per request. Small payloads (requests, URLs, memos) stay as they are, readable in the
 * Web UI and CLI without a codec; the API serves this codec at /codec for the Web UI.
 */

export const GZIP_ENCODING = 'binary/gzip';
/** Payloads below this stay uncompressed: not worth the bytes, and readable as they are. */
const MIN_BYTES = 4096;
/** The wrapped payload's own encoding, kept so decoding restores it exactly. */
const ORIGINAL_ENCODING = 'webloom-original-encoding';

/**
 * Decompressed size of one payload that workers and clients accept. Far above any payload this
 * service makes (Markdown is cut at 1.5 MB, model input at its token budget), it bounds what a
 * forged one can cost.
 */
export const MAX_DECODED_PAYLOAD_BYTES = 64 * 1024 * 1024;
/** Decompression output chunk: a payload of a few MB takes a few thread-pool hops, not hundreds. */
const CHUNK_BYTES = 256 * 1024;

const gunzipBounded = promisify(gunzip);
const text = new TextEncoder();
const decoder = new TextDecoder();

function encodingOf(payload: Payload): string | undefined {
  const encoding = payload.metadata?.encoding;
  return encoding ? decoder.decode(encoding) : undefined;
}

export class GzipPayloadCodec implements PayloadCodec {
  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => {
      // `length`, not `byteLength`: protobuf gives a payload without data an empty array (a workflow
      // returning nothing).
      if (!payload.data || payload.data.length < MIN_BYTES || encodingOf(payload) === GZIP_ENCODING) return payload;
      const metadata: Record<string, Uint8Array> = { ...payload.metadata, encoding: text.encode(GZIP_ENCODING) };
      if (payload.metadata?.encoding) metadata[ORIGINAL_ENCODING] = payload.metadata.encoding;
      return { metadata, data: gzipSync(payload.data, { level: 1 }) };
    });
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => decodePayload(payload, MAX_DECODED_PAYLOAD_BYTES)));
  }
}

/** A payload that decompresses to more than the limit. */
export class DecodedSizeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`payload decompresses to more than ${limitBytes} bytes`);
    this.name = 'DecodedSizeError';
  }
}

/**
 * Restores one payload. Decompression runs on the thread pool, never blocking the event loop,
 * and stops once its output passes `maxBytes`, so a small payload that inflates to gigabytes
 * costs at most that much memory and time.
 */
export async function decodePayload(payload: Payload, maxBytes: number): Promise<Payload> {
  if (encodingOf(payload) !== GZIP_ENCODING || !payload.data) return payload;
  let data: Buffer;
  try {
    data = await gunzipBounded(payload.data, { maxOutputLength: maxBytes, chunkSize: CHUNK_BYTES });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new DecodedSizeError(maxBytes);
    throw err;
  }
  const { [ORIGINAL_ENCODING]: original, ...metadata } = payload.metadata ?? {};
  if (original) metadata.encoding = original;
  else delete metadata.encoding;
  return { metadata, data };
}

/** The data converter every client and worker of this service uses. */
export const dataConverter: DataConverter = { payloadCodecs: [new GzipPayloadCodec()] };
