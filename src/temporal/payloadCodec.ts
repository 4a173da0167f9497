import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { gunzip, gzipSync } from 'node:zlib';
import type { DataConverter, Payload, PayloadCodec } from '@temporalio/common';
import type { PayloadKey, PayloadKeys } from '../config';

/**
 * Every payload on its way to Temporal (workflow inputs such as automate's `data`, activity
 * results such as page snapshots, signals carrying the caller's answers) is encrypted here, so
 * Temporal's database, its backups and anyone reading history without the keys see no content.
 * Large payloads (page Markdown, model input) are gzipped first: each one is stored in history and
 * passed through several hops (activity result, workflow task, workflow result, the API's result
 * poll); at tens of KB that handling was the larger part of Temporal's cost per request. The API
 * serves this codec at /codec, so the Web UI still shows payloads as JSON.
 *
 * Payloads written before encryption (plain or gzip only) still decode, so runs and recorded
 * histories from then replay.
 */

export const GZIP_ENCODING = 'binary/gzip';
export const ENCRYPTED_ENCODING = 'binary/encrypted';
/** Which key sealed a payload: the rotated-out keys still open the payloads they sealed. */
export const KEY_ID_METADATA = 'encryption-key-id';
/** Payloads below this are not compressed: not worth the bytes. */
const MIN_BYTES = 4096;
/** The compressed payload's own encoding, kept so decoding restores it exactly. */
const ORIGINAL_ENCODING = 'webloom-original-encoding';
/** The encoding under the encryption (the payload's own, or gzip), restored on decrypting. */
const SEALED_ENCODING = 'webloom-sealed-encoding';
/**
 * AES-GCM's standard nonce size, random per payload: safe for 2^32 payloads per key (NIST SP
 * 800-38D), millions of runs; rotation (docs/security.md) starts a new count.
 */
const IV_BYTES = 12;
const TAG_BYTES = 16;

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

/** A payload that decompresses to more than the limit. */
export class DecodedSizeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`payload decompresses to more than ${limitBytes} bytes`);
    this.name = 'DecodedSizeError';
  }
}

/** An encrypted payload none of the configured keys opens: an unknown key id, or altered bytes. */
export class UndecryptablePayloadError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'UndecryptablePayloadError';
  }
}

/** Binds the ciphertext to the metadata that says how to read it, so neither can be swapped. */
function associatedData(keyId: string, sealedEncoding: Uint8Array | undefined): Buffer {
  return Buffer.concat([Buffer.from(keyId), Buffer.from([0]), sealedEncoding ?? Buffer.alloc(0)]);
}

function compress(payload: Payload): Payload {
  // `length`, not `byteLength`: protobuf gives a payload without data an empty array (a workflow
  // returning nothing).
  if (!payload.data || payload.data.length < MIN_BYTES || encodingOf(payload) === GZIP_ENCODING) return payload;
  const metadata: Record<string, Uint8Array> = { ...payload.metadata, encoding: text.encode(GZIP_ENCODING) };
  if (payload.metadata?.encoding) metadata[ORIGINAL_ENCODING] = payload.metadata.encoding;
  return { metadata, data: gzipSync(payload.data, { level: 1 }) };
}

function encrypt(payload: Payload, key: PayloadKey): Payload {
  if (!payload.data || payload.data.length === 0 || encodingOf(payload) === ENCRYPTED_ENCODING) return payload;
  const sealed = payload.metadata?.encoding;
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv);
  cipher.setAAD(associatedData(key.id, sealed));
  const body = Buffer.concat([cipher.update(payload.data), cipher.final()]);
  const metadata: Record<string, Uint8Array> = {
    ...payload.metadata,
    encoding: text.encode(ENCRYPTED_ENCODING),
    [KEY_ID_METADATA]: text.encode(key.id),
  };
  if (sealed) metadata[SEALED_ENCODING] = sealed;
  return { metadata, data: Buffer.concat([iv, body, cipher.getAuthTag()]) };
}

function decrypt(payload: Payload, keys: PayloadKeys): Payload {
  if (encodingOf(payload) !== ENCRYPTED_ENCODING || !payload.data) return payload;
  const { [KEY_ID_METADATA]: rawId, [SEALED_ENCODING]: sealed, ...metadata } = payload.metadata ?? {};
  const keyId = rawId ? decoder.decode(rawId) : '';
  const key = keys.find((candidate) => candidate.id === keyId);
  if (!key) throw new UndecryptablePayloadError(`no configured key has the id "${keyId.slice(0, 64)}"`);
  const data = Buffer.from(payload.data);
  if (data.byteLength < IV_BYTES + TAG_BYTES) throw new UndecryptablePayloadError('too short to be encrypted');
  const decipher = createDecipheriv('aes-256-gcm', key.key, data.subarray(0, IV_BYTES));
  decipher.setAAD(associatedData(keyId, sealed));
  decipher.setAuthTag(data.subarray(data.byteLength - TAG_BYTES));
  let plain: Buffer;
  try {
    plain = Buffer.concat([decipher.update(data.subarray(IV_BYTES, data.byteLength - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new UndecryptablePayloadError(`altered, or not sealed with key "${keyId}"`);
  }
  if (sealed) metadata.encoding = sealed;
  else delete metadata.encoding;
  return { metadata, data: plain };
}

/**
 * Restores a compressed payload. Decompression runs on the thread pool, never blocking the event
 * loop, and stops once its output passes `maxBytes`, so a small payload that inflates to gigabytes
 * costs at most that much memory and time.
 */
async function decompress(payload: Payload, maxBytes: number): Promise<Payload> {
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

/** Restores one payload: decrypted with the key it names, then decompressed to at most `maxBytes`. */
export function decodePayload(payload: Payload, keys: PayloadKeys, maxBytes: number): Promise<Payload> {
  return decompress(decrypt(payload, keys), maxBytes);
}

/** Compresses large payloads, then encrypts every payload with the first key. */
export class ServicePayloadCodec implements PayloadCodec {
  constructor(private readonly keys: PayloadKeys) {}

  async encode(payloads: Payload[]): Promise<Payload[]> {
    return payloads.map((payload) => encrypt(compress(payload), this.keys[0]));
  }

  async decode(payloads: Payload[]): Promise<Payload[]> {
    return Promise.all(payloads.map((payload) => decodePayload(payload, this.keys, MAX_DECODED_PAYLOAD_BYTES)));
  }
}

/** Encodes failure messages and stack traces, so the codec encrypts them; workflow bundles take it too. */
export const FAILURE_CONVERTER_PATH = require.resolve('./failureConverter');

/** JSON through the platform's UTF-8 codec (payloadConverter.ts); workflow bundles take it too. */
export const PAYLOAD_CONVERTER_PATH = require.resolve('./payloadConverter');

/** The data converter every client and worker of this service uses. */
export function serviceDataConverter(keys: PayloadKeys): DataConverter {
  return {
    payloadCodecs: [new ServicePayloadCodec(keys)],
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}
