import { DecodedSizeError, GZIP_ENCODING, GzipPayloadCodec } from '../../src/payloadCodec';
import { gzippedZeros, MiB } from '../support/gzipBomb';

const codec = new GzipPayloadCodec();
const utf8 = (bytes?: Uint8Array | null) => Buffer.from(bytes ?? []).toString('utf8');
const jsonPayload = (value: unknown) => ({
  metadata: { encoding: Buffer.from('json/plain') },
  data: Buffer.from(JSON.stringify(value)),
});

const PARAGRAPH = 'The harbour wakes before the sun, and the nets are mended by hand on the long stone quay. ';

describe('payload codec', () => {
  it('refuses to inflate a payload past 64 MiB in workers and clients', async () => {
    const bomb = { metadata: { encoding: Buffer.from(GZIP_ENCODING) }, data: gzippedZeros(16 * MiB, 8) };
    await expect(codec.decode([bomb])).rejects.toThrow(DecodedSizeError);
  });

  it('leaves small payloads as they are and restores large ones exactly', async () => {
    const small = jsonPayload({ url: 'https://example.com' });
    const large = jsonPayload({ content: PARAGRAPH.repeat(100) });
    const [smallOut, largeOut] = await codec.encode([small, large]);
    expect(smallOut).toBe(small);
    expect(utf8(largeOut!.metadata!.encoding)).toBe(GZIP_ENCODING);
    expect(largeOut!.data!.byteLength).toBeLessThan(large.data.byteLength / 4);
    const [decoded] = await codec.decode([largeOut!]);
    expect(utf8(decoded!.metadata!.encoding)).toBe('json/plain');
    expect(utf8(decoded!.data)).toBe(utf8(large.data));
  });

  it('leaves a payload without data alone, as protobuf decodes it (`data` defaulting to an empty array)', async () => {
    // A workflow that returns nothing completes with such a `binary/null` payload.
    const nothing = { metadata: { encoding: Buffer.from('binary/null') }, data: [] as unknown as Uint8Array };
    const [out] = await codec.encode([nothing]);
    expect(out).toBe(nothing);
  });
});
