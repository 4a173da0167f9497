import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { ConfigError, loadConfig } from '../../src/config';
import { requirePayloadKeys } from '../../src/temporal/payloadKeys';
import {
  DecodedSizeError,
  ENCRYPTED_ENCODING,
  GZIP_ENCODING,
  KEY_ID_METADATA,
  ServicePayloadCodec,
  UndecryptablePayloadError,
} from '../../src/temporal/payloadCodec';
import { keptPayloadKeys } from '../../src/stack/keptSecret';
import { gzippedZeros, MiB } from '../support/gzipBomb';

const keyOf = (fill: string) => Buffer.alloc(32, fill).toString('base64');
const keysOf = (value: string) => requirePayloadKeys(loadConfig({ PAYLOAD_KEYS: value }).codec);
const keys = keysOf(`k1:${keyOf('one')}`);
const codec = new ServicePayloadCodec(keys);
const utf8 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('utf8');
const jsonPayload = (value: unknown) => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});

const PARAGRAPH = 'The harbour wakes before the sun, and the nets are mended by hand on the long stone quay. ';
const SECRET = 'correct-horse-battery-42';

describe('payload codec', () => {
  it('encrypts every payload with the first key, small ones too, and restores each exactly', async () => {
    const small = jsonPayload({ data: { password: SECRET } });
    const large = jsonPayload({ content: PARAGRAPH.repeat(100), password: SECRET });
    const [smallOut, largeOut] = await codec.encode([small, large]);
    for (const out of [smallOut!, largeOut!]) {
      expect(utf8(out.metadata!.encoding)).toBe(ENCRYPTED_ENCODING);
      expect(utf8(out.metadata![KEY_ID_METADATA])).toBe('k1');
      expect(Buffer.from(out.data!).includes(SECRET)).toBe(false);
      expect(JSON.stringify(Object.values(out.metadata!).map(utf8))).not.toContain(SECRET);
    }
    // Compressed before it is encrypted: ciphertext does not compress.
    expect(largeOut!.data!.byteLength).toBeLessThan(large.data.byteLength / 4);
    const decoded = await codec.decode([smallOut!, largeOut!]);
    expect(decoded.map((one) => utf8(one.metadata!.encoding))).toEqual(['json/plain', 'json/plain']);
    expect(decoded.map((one) => utf8(one.data))).toEqual([utf8(small.data), utf8(large.data)]);
  });

  it('decrypts with a rotated-out key what it sealed, and seals new payloads with the new one', async () => {
    const [old] = await codec.encode([jsonPayload({ data: { password: SECRET } })]);
    const rotated = new ServicePayloadCodec(keysOf(`k2:${keyOf('two')},k1:${keyOf('one')}`));
    const [fresh] = await rotated.encode([jsonPayload({ data: { password: SECRET } })]);
    expect(utf8(fresh!.metadata![KEY_ID_METADATA])).toBe('k2');
    const decoded = await rotated.decode([old!, fresh!]);
    expect(decoded.map((one) => JSON.parse(utf8(one.data)))).toEqual([
      { data: { password: SECRET } },
      { data: { password: SECRET } },
    ]);
    await expect(codec.decode([fresh!])).rejects.toThrow(
      new UndecryptablePayloadError('no configured key has the id "k2"'),
    );
  });

  it('refuses a payload whose bytes or metadata were altered', async () => {
    const [sealed] = await codec.encode([jsonPayload({ data: { password: SECRET } })]);
    const flipped = Buffer.from(sealed!.data!);
    flipped[20]! ^= 1;
    await expect(codec.decode([{ ...sealed!, data: flipped }])).rejects.toThrow(UndecryptablePayloadError);
    const relabelled = {
      ...sealed!,
      metadata: { ...sealed!.metadata, 'webloom-sealed-encoding': Buffer.from('binary/gzip') },
    };
    await expect(codec.decode([relabelled])).rejects.toThrow(UndecryptablePayloadError);
    const truncated = { ...sealed!, data: Buffer.from(sealed!.data!).subarray(0, 10) };
    await expect(codec.decode([truncated])).rejects.toThrow(UndecryptablePayloadError);
  });

  it('still reads payloads written before encryption: plain and gzip-only', async () => {
    const plain = jsonPayload({ url: 'https://example.com' });
    const gzipOnly = {
      metadata: { encoding: Buffer.from(GZIP_ENCODING), 'webloom-original-encoding': Buffer.from('json/plain') },
      data: gzipSync(plain.data),
    };
    const decoded = await codec.decode([plain, gzipOnly]);
    expect(decoded.map((one) => utf8(one.data))).toEqual([utf8(plain.data), utf8(plain.data)]);
    expect(utf8(decoded[1]!.metadata!.encoding)).toBe('json/plain');
  });

  it('refuses to inflate a payload past 64 MiB in workers and clients', async () => {
    const bomb = { metadata: { encoding: Buffer.from(GZIP_ENCODING) }, data: gzippedZeros(16 * MiB, 8) };
    await expect(codec.decode([bomb])).rejects.toThrow(DecodedSizeError);
    const [sealedBomb] = await codec.encode([bomb]);
    await expect(codec.decode([sealedBomb!])).rejects.toThrow(DecodedSizeError);
  });

  it('leaves a payload without data alone, as protobuf decodes it (`data` defaulting to an empty array)', async () => {
    // A workflow that returns nothing completes with such a `binary/null` payload.
    const nothing = { metadata: { encoding: Buffer.from('binary/null') }, data: [] as unknown as Uint8Array };
    const [out] = await codec.encode([nothing]);
    expect(out).toBe(nothing);
  });
});

describe('PAYLOAD_KEYS', () => {
  const problem = (value: string) => {
    try {
      loadConfig({ PAYLOAD_KEYS: value });
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      return (err as Error).message;
    }
    return undefined;
  };

  it('stops the process at start, naming the variable and never echoing a key', () => {
    const short = Buffer.alloc(16, 'x').toString('base64');
    expect(problem(`k1:${short}`)).toMatch(/^PAYLOAD_KEYS: key "k1" is 16 bytes, not 32/);
    expect(problem(`k1:${short}`)).not.toContain(short);
    expect(problem(`${keyOf('one')}`)).toMatch(/^PAYLOAD_KEYS: entry 1: expected comma-separated id:key pairs/);
    expect(problem(`k1:${keyOf('one')},k2:not base64!`)).toMatch(/^PAYLOAD_KEYS: entry 2:/);
    expect(problem(`k1:${keyOf('one')},k1:${keyOf('two')}`)).toBe('PAYLOAD_KEYS: key id "k1" appears twice');
    expect(problem(`k1:${keyOf('one')}`)).toBeUndefined();
    expect(problem(`k1:${Buffer.alloc(32, 'one').toString('base64url')}`)).toBeUndefined();
  });

  it('is required of every process that talks to Temporal', () => {
    expect(() => requirePayloadKeys(loadConfig({}).codec)).toThrow(/^PAYLOAD_KEYS: not set/);
  });
});

describe('the payload key npm start keeps', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'webloom-keys-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('is made once, readable by its owner only, and kept across starts', async () => {
    const made = await keptPayloadKeys(dataDir);
    expect(keysOf(made)[0].key.byteLength).toBe(32);
    expect((await stat(path.join(dataDir, 'payload-keys'))).mode & 0o777).toBe(0o600);
    expect(await keptPayloadKeys(dataDir)).toBe(made);
    expect((await readFile(path.join(dataDir, 'payload-keys'), 'utf8')).trim()).toBe(made);
  });

  it('stops the start when its file is damaged, naming the file', async () => {
    const file = path.join(dataDir, 'payload-keys');
    await writeFile(file, 'local1:too-short\n');
    const error = await keptPayloadKeys(dataDir).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(new RegExp(`^${file}: key "local1" is \\d+ bytes, not 32`));
  });
});
