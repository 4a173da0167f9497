import {
  BinaryPayloadConverter,
  CompositePayloadConverter,
  JsonPayloadConverter,
  METADATA_ENCODING_KEY,
  UndefinedPayloadConverter,
  ValueError,
  encodingKeys,
  type Payload,
} from '@temporalio/common';

const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

/**
 * JSON payloads byte for byte as the SDK's own converter writes them, through the platform's
 * UTF-8 encoder instead of the SDK's, which is written in JavaScript for runtimes without one.
 * Page Markdown and model input are tens of KB of JSON, encoded and decoded at every hop (activity
 * result, workflow task, workflow result, the API's result); encoding the bench's 87 KB result took
 * 0.57 ms with the SDK's encoder and 0.18 ms with the platform's, decoding 0.38 and 0.07 ms (JSON's
 * own work included). The workflow sandbox has TextEncoder and TextDecoder as globals, so the same
 * module serves there.
 */
class NativeUtf8JsonPayloadConverter extends JsonPayloadConverter {
  override toPayload(value: unknown): Payload | undefined {
    if (value === undefined) return undefined;
    let json: string;
    try {
      json = JSON.stringify(value);
    } catch {
      return undefined;
    }
    return {
      metadata: { [METADATA_ENCODING_KEY]: encodingKeys.METADATA_ENCODING_JSON },
      data: utf8.encode(json),
    };
  }

  override fromPayload<T>(content: Payload): T {
    if (content.data === undefined || content.data === null) throw new ValueError('Got payload with no data');
    return JSON.parse(fromUtf8.decode(content.data)) as T;
  }
}

/** The SDK's default converters, in its order, with JSON through the platform's UTF-8 codec. Loaded by path. */
export const payloadConverter = new CompositePayloadConverter(
  new UndefinedPayloadConverter(),
  new BinaryPayloadConverter(),
  new NativeUtf8JsonPayloadConverter(),
);
