import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { readBilling } from '../config/billingSettings';
import { spawnChild, waitUntil, type Child } from '../stack/children';

/**
 * The embedded store `npm start` runs when no DATABASE_URL is given: PGlite (PostgreSQL compiled
 * to WebAssembly) in a process of its own, serving the PostgreSQL protocol on a Unix socket in its
 * data directory, so the API and the admin command reach it with the same driver and SQL as a
 * PostgreSQL server. The directory is private (0700): only our own account can reach the socket.
 */

/** The socket file name libpq and `pg` look for in a socket directory, for the default port. */
export const SOCKET_FILE = '.s.PGSQL.5432';

/** The DATABASE_URL of the embedded store kept in `dir`. */
export function embeddedStoreUrl(dir: string): string {
  return `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(path.resolve(dir))}`;
}

/**
 * The store of the service configured by `env`: DATABASE_URL, else the embedded store `npm start`
 * keeps under DATA_DIR; undefined when neither is there (the service charges nothing).
 */
export function serviceStoreUrl(env: NodeJS.ProcessEnv): string | undefined {
  const configured = readBilling(env).databaseUrl;
  if (configured) return configured;
  const dir = path.join(path.resolve(env.DATA_DIR?.trim() || path.join(process.cwd(), 'data')), 'store');
  return existsSync(path.join(dir, SOCKET_FILE)) ? embeddedStoreUrl(dir) : undefined;
}

/** Starts the store's process; it is ready once its socket exists, after its migrations. */
export async function startEmbeddedStore(
  dir: string,
  options: { onLine?: (line: string) => void; env?: NodeJS.ProcessEnv; script?: string } = {},
): Promise<Child> {
  // Tests run this module from src/, where only the built program can be run.
  const script = path.join(options.script ?? __dirname, 'embeddedStoreMain.js');
  // A process killed outright leaves its socket file, which would read as ready before the new one listens.
  await rm(path.join(dir, SOCKET_FILE), { force: true });
  const child = spawnChild('store', process.execPath, [script, dir], {
    env: options.env,
    onLine: options.onLine,
  });
  await waitUntil('the store', child, async () => existsSync(path.join(dir, SOCKET_FILE)), 120_000);
  return child;
}
