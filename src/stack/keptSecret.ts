import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePayloadKeys } from '../temporal/payloadKeys';

const PAYLOAD_KEYS_FILE = 'payload-keys';

/** A random secret kept in the data directory, so it survives restarts like the runs do. */
export async function keptSecret(dataDir: string, name: string, prefix: string, bytes = 24): Promise<string> {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = `${prefix}${randomBytes(bytes).toString('base64url')}`;
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/**
 * The payload key of a stack on one machine, kept with the history it encrypts: Temporal's
 * database is in the same data directory, and losing the key would make every run in it unreadable.
 * The file holds PAYLOAD_KEYS's value, so a key is rotated by putting a new `id:key` first in it.
 */
export async function keptPayloadKeys(dataDir: string): Promise<string> {
  const kept = await keptSecret(dataDir, PAYLOAD_KEYS_FILE, 'local1:', 32);
  // Checked here so that a damaged file stops the start with its name, not every child in turn.
  parsePayloadKeys(kept, path.join(dataDir, PAYLOAD_KEYS_FILE));
  return kept;
}
