import { existsSync, readdirSync, realpathSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { goInstall, hasGo } from './goInstall';
import { TEMPORAL_SERVER_VERSION, TEMPORAL_UI_SERVER_VERSION, type ClusterBinaries } from './clusterTopology';
import { findTemporalCli } from './temporalCli';

/**
 * Finds the programs of the cluster topology, building Temporal's from their Go modules on first
 * use into a per-user cache outside any checkout (like the CLI), so every clone on a machine
 * shares one build. PostgreSQL and Redis come from the system's packages.
 */

export function webloomCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'webloom');
}

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/**
 * Debian keeps PostgreSQL's server programs out of PATH, in /usr/lib/postgresql/<major>/bin;
 * elsewhere (Homebrew, a source build) `postgres` is on PATH with initdb beside it.
 */
export function findPostgresBinDir(explicit: string | undefined): string {
  if (explicit) {
    if (!existsSync(path.join(explicit, 'postgres'))) throw new Error(`POSTGRES_BIN_DIR: no postgres in ${explicit}`);
    return explicit;
  }
  const fromPath = onPath('postgres');
  if (fromPath) return path.dirname(realpathSync(fromPath));
  const debian = '/usr/lib/postgresql';
  const majors = existsSync(debian)
    ? readdirSync(debian)
        .filter((major) => existsSync(path.join(debian, major, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (majors[0]) return path.join(debian, majors[0], 'bin');
  throw new Error(
    'PostgreSQL not found: install it (Debian: apt-get install postgresql) or set POSTGRES_BIN_DIR to the ' +
      'directory holding postgres and initdb',
  );
}

/** Builds the Go `packages` into `dir` unless every one of `binaries` is there already. */
async function goBuilt(
  dir: string,
  packages: string[],
  binaries: string[],
  what: string,
  log: (line: string) => void,
): Promise<string> {
  const missing = () => binaries.map((name) => path.join(dir, name)).filter((file) => !existsSync(file));
  if (missing().length === 0) return dir;
  if (!(await hasGo()))
    throw new Error(`${what} is built with Go, which is missing: install Go 1.25 or later (https://go.dev/dl/)`);
  await mkdir(dir, { recursive: true });
  log(`building ${what} with go install into ${dir} (minutes, once per machine)`);
  const started = Date.now();
  await goInstall(dir, packages);
  log(`built ${what} in ${Math.round((Date.now() - started) / 1000)} s`);
  if (missing().length > 0) throw new Error(`go install finished but ${missing().join(', ')} is missing`);
  return dir;
}

export interface BinaryOptions {
  temporalCliPath?: string;
  postgresBinDir?: string;
  log: (line: string) => void;
}

export async function findClusterBinaries(
  options: BinaryOptions,
): Promise<ClusterBinaries & { postgresBinDir: string }> {
  const postgresBinDir = findPostgresBinDir(options.postgresBinDir);
  const redis = onPath('redis-server');
  if (!redis) throw new Error('redis-server not found: install it (Debian: apt-get install redis-server)');
  const cache = webloomCacheDir();
  const server = await goBuilt(
    path.join(cache, 'temporal-server', `v${TEMPORAL_SERVER_VERSION}`),
    [
      `go.temporal.io/server/cmd/server@v${TEMPORAL_SERVER_VERSION}`,
      `go.temporal.io/server/cmd/tools/sql@v${TEMPORAL_SERVER_VERSION}`,
    ],
    ['server', 'sql'],
    `Temporal server v${TEMPORAL_SERVER_VERSION}`,
    options.log,
  );
  const ui = await goBuilt(
    path.join(cache, 'temporal-ui-server', `v${TEMPORAL_UI_SERVER_VERSION}`),
    [`github.com/temporalio/ui-server/v2/cmd/server@v${TEMPORAL_UI_SERVER_VERSION}`],
    ['server'],
    `Temporal UI server v${TEMPORAL_UI_SERVER_VERSION}`,
    options.log,
  );
  return {
    node: process.execPath,
    postgres: path.join(postgresBinDir, 'postgres'),
    postgresBinDir,
    redis,
    temporalServer: path.join(server, 'server'),
    temporalSqlTool: path.join(server, 'sql'),
    temporalUiServer: path.join(ui, 'server'),
    temporalCli: await findTemporalCli(options.temporalCliPath, options.log),
  };
}
