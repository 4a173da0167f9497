import { execFile, execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { chown, mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { POSTGRES_USER } from './clusterTopology';

const run = promisify(execFile);

/**
 * A private PostgreSQL instance for Temporal: its own data directory, on a loopback port, no
 * system service. PostgreSQL refuses to run as root, so when we are root its programs run as
 * `nobody` (the data directory is handed to that user, and every directory above it must let
 * that user through, as /tmp and a checkout under /work or /home usually do).
 */

export type UnixUser = { uid: number; gid: number };

/** The account PostgreSQL runs as: ours, or `nobody` when we are root. */
export function postgresAccount(): UnixUser | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/** Whether `account` may enter `dir`, by the permission bits that apply to it. */
function canEnter(dir: string, account: UnixUser): boolean {
  const { uid, gid, mode } = statSync(dir);
  return Boolean(uid === account.uid ? mode & 0o100 : gid === account.gid ? mode & 0o010 : mode & 0o001);
}

/**
 * Every directory above the data directory must let the account through; otherwise initdb fails
 * with a message that does not say which.
 */
function checkReachable(dataDir: string, account: UnixUser): void {
  for (let dir = path.dirname(dataDir); ; dir = path.dirname(dir)) {
    if (!canEnter(dir, account))
      throw new Error(
        `PostgreSQL must run as nobody (it refuses root), and nobody cannot enter ${dir}: ` +
          `set DATA_DIR to a directory it can reach, or let it through (chmod o+x ${dir})`,
      );
    if (dir === path.dirname(dir)) return;
  }
}

/**
 * Creates the database cluster unless the directory holds one already. The superuser is Temporal's
 * user with a password (scram-sha-256), so no other local account can connect without it.
 */
export async function initPostgres(
  binDir: string,
  dataDir: string,
  password: string,
  account?: UnixUser,
): Promise<void> {
  if (existsSync(path.join(dataDir, 'PG_VERSION'))) return;
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (account) checkReachable(dataDir, account);
  const passwordFile = path.join(path.dirname(dataDir), `.${path.basename(dataDir)}-initdb-password`);
  await writeFile(passwordFile, password, { mode: 0o600 });
  try {
    if (account) {
      await chown(dataDir, account.uid, account.gid);
      await chown(passwordFile, account.uid, account.gid);
    }
    const args = [
      '-D',
      dataDir,
      '-U',
      POSTGRES_USER,
      `--pwfile=${passwordFile}`,
      '--auth=scram-sha-256',
      '--encoding=UTF8',
      '--locale=C',
      '--no-instructions',
    ];
    await run(path.join(binDir, 'initdb'), args, { ...account, cwd: path.dirname(dataDir) }).catch((err: unknown) => {
      const stderr = (err as { stderr?: string }).stderr ?? '';
      throw new Error(`initdb of ${dataDir} failed: ${stderr.trim() || String(err)}`);
    });
  } finally {
    await rm(passwordFile, { force: true });
  }
}

/** Whether the server accepts connections (pg_isready: not while it starts up or recovers). */
export async function postgresReady(binDir: string, host: string, port: number): Promise<boolean> {
  await run(path.join(binDir, 'pg_isready'), ['-q', '-h', host, '-p', String(port)]);
  return true;
}
