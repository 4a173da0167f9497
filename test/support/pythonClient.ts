import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MissingPrerequisite } from './prerequisites';

/**
 * The official Python client in a virtual environment of its own, made on first use and kept
 * per machine beside the Temporal CLI (XDG_CACHE_HOME or ~/.cache, under webloom/), one per
 * version of test/support/python/requirements.txt. Needs Python 3 with its venv module (Debian:
 * python3-venv) and PyPI.
 */

const DIR = path.join(__dirname, 'python');
export const CLIENT_SCRIPT = path.join(DIR, 'official_client.py');

/** A stalled package index must fail the run with a message, not hold it until CI gives up. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;

function run(command: string, args: string[]): void {
  const result = spawnSync(command, args, { encoding: 'utf8', timeout: INSTALL_TIMEOUT_MS });
  if (result.status !== 0)
    throw new MissingPrerequisite(
      `${[command, ...args].join(' ')} failed (${result.error?.message ?? `exit ${result.status}`}): ` +
        `${result.stderr?.trim().split('\n').at(-1) ?? ''}; the Python client test needs python3 with venv ` +
        '(Debian: python3-venv) and PyPI',
    );
}

/**
 * The venv's python, with the client installed. The e2e global setup calls it first, so that no
 * test's time (nor the pages and stand-ins its process serves) waits on an install.
 */
export function pythonWithClient(): string {
  const requirements = path.join(DIR, 'requirements.txt');
  const version = createHash('sha256').update(readFileSync(requirements)).digest('hex').slice(0, 12);
  const cache = process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache');
  const venv = path.join(cache, 'webloom', `python-client-${version}`);
  if (!existsSync(venv)) {
    console.log(`installing the Python client into ${venv}`);
    // Made aside and renamed into place, so a run beside this one never sees it half installed.
    const building = `${venv}.${process.pid}`;
    rmSync(building, { recursive: true, force: true });
    run('python3', ['-m', 'venv', building]);
    run(path.join(building, 'bin', 'python'), [
      '-m',
      'pip',
      'install',
      '--quiet',
      '--disable-pip-version-check',
      '-r',
      requirements,
    ]);
    try {
      renameSync(building, venv);
    } catch {
      rmSync(building, { recursive: true, force: true });
    }
  }
  return path.join(venv, 'bin', 'python');
}
