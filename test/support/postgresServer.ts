import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawnChild, waitUntil } from '../../src/stack/children';
import { findPostgresBinDir } from '../../src/stack/clusterBinaries';
import { POSTGRES_USER } from '../../src/stack/clusterTopology';
import { freePort } from '../../src/stack/ports';
import { initPostgres, postgresAccount, postgresReady } from '../../src/stack/postgres';

export interface PostgresServer {
  /** The URL of a database of its own, `webloom`. */
  url: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server of Debian's (the binaries the cluster topology runs) for the store's tests:
 * its own data directory in a temporary directory, on a free loopback port, with a database for
 * the service.
 */
export async function startPostgresServer(): Promise<PostgresServer> {
  const binDir = findPostgresBinDir(process.env.POSTGRES_BIN_DIR);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'webloom-store-pg-'));
  // PostgreSQL runs as nobody when we are root; it must reach its data directory.
  await chmod(dir, 0o711);
  const dataDir = path.join(dir, 'data');
  const password = 'store-test-password';
  const account = postgresAccount();
  await initPostgres(binDir, dataDir, password, account);
  const port = await freePort();
  const server = spawnChild(
    'postgres',
    path.join(binDir, 'postgres'),
    ['-D', dataDir, '-h', '127.0.0.1', '-p', String(port), '-k', ''],
    { user: account, parentDeathSignal: 'SIGINT', onLine: () => undefined },
  );
  await waitUntil('PostgreSQL', server, () => postgresReady(binDir, '127.0.0.1', port), 60_000);
  const admin = `postgresql://${POSTGRES_USER}:${password}@127.0.0.1:${port}`;
  const { Client } = await import('pg');
  const client = new Client({ connectionString: `${admin}/postgres` });
  await client.connect();
  await client.query('CREATE DATABASE webloom');
  await client.end();
  return {
    url: `${admin}/webloom`,
    stop: async () => {
      server.process.kill('SIGINT');
      await server.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
