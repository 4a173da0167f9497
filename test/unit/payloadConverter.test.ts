import { defaultPayloadConverter } from '@temporalio/common';
import { payloadConverter } from '../../src/temporal/payloadConverter';

/**
 * The service's payload converter writes JSON through the platform's UTF-8 encoder: the payloads
 * must be the SDK converter's byte for byte, so histories written by either decode with both.
 */
const values: unknown[] = [
  null,
  0,
  -1.5e300,
  true,
  '',
  'plain ASCII',
  'accents: déjà vu, ñandú, Straße',
  'scripts: 東京 한국어 русский عربى',
  'astral: 😀 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 🏳️‍🌈',
  'a lone surrogate \ud800 and a reversed pair \udc00\ud800',
  'control and escapes: \u0000 \u001f " \\ \n \u2028',
  {
    content: '# Title\n\n' + 'Paragraph with [a link](https://example.com/é). '.repeat(2000),
    metadata: { title: 'T' },
  },
  [1, 'two', { three: [3] }],
];

it('writes JSON payloads byte for byte as the SDK does, and reads them back', () => {
  for (const value of values) {
    const ours = payloadConverter.toPayload(value)!;
    const sdks = defaultPayloadConverter.toPayload(value)!;
    expect({ value, metadata: ours.metadata, data: Buffer.from(ours.data!).toString('hex') }).toEqual({
      value,
      metadata: sdks.metadata,
      data: Buffer.from(sdks.data!).toString('hex'),
    });
    expect(payloadConverter.fromPayload(sdks)).toEqual(defaultPayloadConverter.fromPayload(sdks));
  }
});

it('keeps the SDK converters for undefined and bytes', () => {
  const bytes = new Uint8Array([0, 255, 7]);
  expect(payloadConverter.toPayload(bytes)).toEqual(defaultPayloadConverter.toPayload(bytes));
  expect(payloadConverter.fromPayload(payloadConverter.toPayload(bytes)!)).toEqual(bytes);
  expect(payloadConverter.toPayload(undefined)).toEqual(defaultPayloadConverter.toPayload(undefined));
  expect(payloadConverter.fromPayload(payloadConverter.toPayload(undefined)!)).toBeUndefined();
});
