import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { Pool } from 'pg';
import { runMain } from '../config/runMain';
import { migrate } from './migrate';
import { embeddedStoreUrl, SOCKET_FILE } from './embeddedStore';

/**
 * The embedded store's process (see ./embeddedStore.ts): `node embeddedStoreMain.js <dir>`.
 * Migrations run through a socket no one else knows before the public one opens: PGlite serves
 * every client in one session, where PostgreSQL's advisory lock cannot keep two migrations apart.
 */

/** PGlite runs one query at a time; the server queues the rest, keeping each transaction whole. */
const MAX_CONNECTIONS = 64;

async function serve(db: PGlite, socketPath: string): Promise<PGLiteSocketServer> {
  // A socket file left by a process that was killed would refuse the listen.
  await rm(socketPath, { force: true });
  const server = new PGLiteSocketServer({ db, path: socketPath, maxConnections: MAX_CONNECTIONS });
  await server.start();
  return server;
}

/** A data directory that does not exist yet is made by embeddedStoreInit.js, in a process of its own. */
async function ensureDataDir(pgdata: string): Promise<void> {
  if (existsSync(pgdata)) return;
  await promisify(execFile)(process.execPath, [path.join(__dirname, 'embeddedStoreInit.js'), pgdata]);
}

async function main(): Promise<void> {
  const dir = path.resolve(process.argv[2] ?? 'data/store');
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await chmod(dir, 0o700);
  const pgdata = path.join(dir, 'pgdata');
  await ensureDataDir(pgdata);
  const db = await PGlite.create({ dataDir: pgdata });
  const setupDir = path.join(dir, 'setup');
  await mkdir(setupDir, { recursive: true, mode: 0o700 });
  const setup = await serve(db, path.join(setupDir, SOCKET_FILE));
  const pool = new Pool({ connectionString: embeddedStoreUrl(setupDir), max: 1 });
  try {
    await migrate(pool);
  } finally {
    await pool.end();
    await setup.stop();
  }
  const server = await serve(db, path.join(dir, SOCKET_FILE));
  console.log(`store listening on ${path.join(dir, SOCKET_FILE)}`);
  const stop = (): void => {
    void server
      .stop()
      .then(() => db.close())
      .finally(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

runMain(main);
