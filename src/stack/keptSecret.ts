import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** A random secret kept in the data directory, so it survives restarts like the runs do. */
export async function keptSecret(dataDir: string, name: string, prefix: string): Promise<string> {
  const file = path.join(dataDir, name);
  if (existsSync(file)) return (await readFile(file, 'utf8')).trim();
  const secret = `${prefix}${randomBytes(24).toString('base64url')}`;
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}
