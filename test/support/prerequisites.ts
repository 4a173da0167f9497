import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/**
 * Programs a test tier needs from the system, checked before any suite starts. Where the
 * machine allows it (root with apt, as on CI) the missing ones are installed; otherwise the run
 * stops at once with one line naming them and the command that installs them, instead of a
 * suite failing halfway with `spawn ... ENOENT`.
 */
export interface Prerequisite {
  /** The program, as a person would look for it. */
  name: string;
  /** The executable: a path, or a command looked up on PATH. */
  executable: string;
  debianPackage: string;
  homebrewPackage: string;
}

export function findExecutable(executable: string): string | undefined {
  const candidates = executable.includes(path.sep)
    ? [executable]
    : (process.env.PATH ?? '')
        .split(path.delimiter)
        .filter(Boolean)
        .map((dir) => path.join(dir, executable));
  return candidates.find((candidate) => {
    try {
      accessSync(candidate, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/** A one-line failure: jest prints the message, and a stack trace would only bury it. */
export class MissingPrerequisite extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingPrerequisite';
    this.stack = message;
  }
}

function canInstallWithApt(): boolean {
  return process.getuid?.() === 0 && findExecutable('apt-get') !== undefined;
}

function aptInstall(packages: string[]): void {
  console.log(`installing Debian packages for the tests: ${packages.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [
    ['update', '-qq'],
    ['install', '-y', '-qq', '--no-install-recommends', ...packages],
  ]) {
    const result = spawnSync('apt-get', args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
    if (result.status !== 0) throw new MissingPrerequisite(`apt-get ${args.join(' ')} failed (exit ${result.status})`);
  }
}

function installCommand(missing: Prerequisite[]): string {
  return process.platform === 'darwin'
    ? `brew install ${missing.map((p) => p.homebrewPackage).join(' ')}`
    : `sudo apt-get install ${missing.map((p) => p.debianPackage).join(' ')}`;
}

/** Installs what is missing where it can, else throws naming it all in one line. */
export function ensurePrerequisites(tier: string, needed: Prerequisite[]): void {
  let missing = needed.filter((p) => !findExecutable(p.executable));
  if (missing.length === 0) return;
  if (canInstallWithApt()) {
    aptInstall(missing.map((p) => p.debianPackage));
    missing = missing.filter((p) => !findExecutable(p.executable));
    if (missing.length === 0) return;
  }
  const names = missing
    .map((p) => (p.executable.includes(path.sep) ? `${p.name} (${p.executable})` : p.name))
    .join(', ');
  throw new MissingPrerequisite(
    `The ${tier} tests need ${names}, missing on this machine; install with: ${installCommand(missing)}`,
  );
}
