import { createHash, randomBytes } from 'node:crypto';
import { newUlid } from '../ids';

/** The prefix of every key the store issues: a leaked one is recognisable (secret scanners, logs). */
export const KEY_PREFIX = 'wl_live_';

/** Characters of a key kept beside it in plain text, to tell keys apart in a listing. */
const HINT_LENGTH = KEY_PREFIX.length + 4;

export interface NewKey {
  id: string;
  /** Shown once, at creation; only its hash is stored. */
  key: string;
  hash: Buffer;
  hint: string;
}

export const keyHash = (key: string): Buffer => createHash('sha256').update(key).digest();

export const keyHint = (key: string): string => key.slice(0, HINT_LENGTH);

/** 192 random bits: past guessing, so a plain SHA-256 keeps it safe at rest. */
export function newKey(): NewKey {
  const key = `${KEY_PREFIX}${randomBytes(24).toString('base64url')}`;
  return { id: `key_${newUlid().toLowerCase()}`, key, hash: keyHash(key), hint: keyHint(key) };
}
