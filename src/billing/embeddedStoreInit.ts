import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { runMain } from '../config/runMain';

/**
 * Makes the embedded store's data directory, in a process of its own that then exits:
 * `node embeddedStoreInit.js <pgdata>`. PGlite's initdb grows the WebAssembly memory of the process
 * that runs it to about 800 MB, which it never gives back; the store's own process, opening the
 * directory once it exists, stays near 350 MB. The directory is made beside its place and moved
 * there whole, so a start cut short leaves nothing that reads as a store.
 */
async function main(): Promise<void> {
  const pgdata = process.argv[2];
  if (!pgdata) throw new Error('usage: embeddedStoreInit.js <data directory>');
  const making = `${path.resolve(pgdata)}.new`;
  await rm(making, { recursive: true, force: true });
  const db = await PGlite.create({ dataDir: making });
  await db.close();
  await rename(making, pgdata);
}

runMain(main);
