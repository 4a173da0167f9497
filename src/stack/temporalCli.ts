import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { goInstall, hasGo } from './goInstall';

const run = promisify(execFile);

/** The one Temporal CLI version the project is tested with. */
export const TEMPORAL_CLI_VERSION = '1.5.1';

/**
 * A per-user cache outside any checkout, so every clone on a machine shares one CLI build.
 * TEMPORAL_CLI_CACHE overrides it; otherwise XDG_CACHE_HOME or ~/.cache.
 */
export function cliCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  const base =
    env.TEMPORAL_CLI_CACHE ?? path.join(env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'webloom', 'temporal');
  return path.join(base, `v${TEMPORAL_CLI_VERSION}`);
}

async function onPath(name: string): Promise<string | undefined> {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const candidate = path.join(dir, name);
    if (dir && existsSync(candidate)) return candidate;
  }
  return undefined;
}

/** Builds the CLI from its Go module; works wherever the Go module proxy is reachable. */
async function buildCli(cacheDir: string, log: (line: string) => void): Promise<void> {
  log(`building Temporal CLI v${TEMPORAL_CLI_VERSION} with go install (a few minutes, once per machine)`);
  await goInstall(cacheDir, [`github.com/temporalio/cli/cmd/temporal@v${TEMPORAL_CLI_VERSION}`]);
}

/** The official release archive, for machines without Go. */
async function download(cacheDir: string, log: (line: string) => void): Promise<void> {
  const arch = { x64: 'amd64', arm64: 'arm64' }[os.arch() as string];
  const platform = { linux: 'linux', darwin: 'darwin' }[os.platform() as string];
  if (!arch || !platform)
    throw new Error(`no Temporal CLI release for ${os.platform()}/${os.arch()}; set TEMPORAL_CLI_PATH`);
  const url = `https://temporal.download/cli/archive/v${TEMPORAL_CLI_VERSION}?platform=${platform}&arch=${arch}`;
  log(`downloading Temporal CLI v${TEMPORAL_CLI_VERSION}`);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`Temporal CLI download failed: HTTP ${response.status} from ${url}`);
  const work = await mkdtemp(path.join(os.tmpdir(), 'temporal-cli-'));
  try {
    const archive = path.join(work, 'temporal.tar.gz');
    await writeFile(archive, Buffer.from(await response.arrayBuffer()));
    await run('tar', ['-xzf', archive, '-C', work]);
    await rename(path.join(work, 'temporal'), path.join(cacheDir, 'temporal'));
    await chmod(path.join(cacheDir, 'temporal'), 0o755);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/**
 * Finds the Temporal CLI: TEMPORAL_CLI_PATH, then `temporal` on PATH, then the cache, and
 * installs it into the cache as a last resort.
 */
export async function findTemporalCli(explicitPath: string | undefined, log: (line: string) => void): Promise<string> {
  if (explicitPath) {
    if (!existsSync(explicitPath)) throw new Error(`TEMPORAL_CLI_PATH: no file at ${explicitPath}`);
    return explicitPath;
  }
  const fromPath = await onPath('temporal');
  if (fromPath) return fromPath;
  const cacheDir = cliCacheDir();
  const cached = path.join(cacheDir, 'temporal');
  if (existsSync(cached)) return cached;
  await mkdir(cacheDir, { recursive: true });
  if (await hasGo()) await buildCli(cacheDir, log);
  else await download(cacheDir, log);
  if (!existsSync(cached)) throw new Error(`Temporal CLI install finished but ${cached} is missing`);
  return cached;
}
