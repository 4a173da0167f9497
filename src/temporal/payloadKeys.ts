import { ConfigError } from '../config/configError';
import { readList } from '../config/envReaders';
import { PAYLOAD_KEYS_VARIABLE, type CodecSettings, type PayloadKey, type PayloadKeys } from '../config/settings';

/**
 * The keys the payload codec (./payloadCodec.ts) seals and opens payloads with: read from
 * PAYLOAD_KEYS (or the file `npm start` keeps them in), and written back for child processes.
 */

const PAYLOAD_KEYS_FORMAT =
  'expected comma-separated id:key pairs, the first encrypting; each key 32 random bytes in base64 (openssl rand -base64 32)';

/**
 * `id:key,id:key`, from `name` (the variable, or the file that holds its value). The problems name
 * a key's id, never its bytes, as they reach logs.
 */
export function parsePayloadKeys(value: string, name: string): PayloadKeys {
  const pairs = readList({ [name]: value }, name);
  const keys: PayloadKey[] = [];
  for (const [index, pair] of pairs.entries()) {
    const match = /^([\w.-]{1,64}):([A-Za-z0-9+/_-]+={0,2})$/.exec(pair);
    if (!match) throw new ConfigError(name, `entry ${index + 1}: ${PAYLOAD_KEYS_FORMAT}`);
    const id = match[1]!;
    const key = Buffer.from(match[2]!, 'base64');
    if (key.byteLength !== 32)
      throw new ConfigError(name, `key "${id}" is ${key.byteLength} bytes, not 32; ${PAYLOAD_KEYS_FORMAT}`);
    if (keys.some((other) => other.id === id)) throw new ConfigError(name, `key id "${id}" appears twice`);
    keys.push({ id, key });
  }
  if (keys.length === 0) throw new ConfigError(name, PAYLOAD_KEYS_FORMAT);
  return [keys[0]!, ...keys.slice(1)];
}

/** The value of PAYLOAD_KEYS that gives a child process these keys. */
export function formatPayloadKeys(keys: PayloadKeys): string {
  return keys.map(({ id, key }) => `${id}:${key.toString('base64')}`).join(',');
}

/**
 * The keys of a process that talks to Temporal. None is no default: payloads written without
 * encryption would sit in history in clear, and a process with other keys could not read its
 * peers' payloads.
 */
export function requirePayloadKeys(codec: Pick<CodecSettings, 'keys'>): PayloadKeys {
  if (!codec.keys)
    throw new ConfigError(
      PAYLOAD_KEYS_VARIABLE,
      `not set: every API, worker and tool process needs the same keys to encrypt and read Temporal payloads; ${PAYLOAD_KEYS_FORMAT}. npm start makes one and keeps it in the data directory`,
    );
  return codec.keys;
}
