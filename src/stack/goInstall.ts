import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export async function hasGo(): Promise<boolean> {
  try {
    await run('go', ['version']);
    return true;
  } catch {
    return false;
  }
}

/**
 * Builds Go programs from their modules into `binDir`. Go's own module and build caches are
 * kept (they are per user, outside any checkout), so a second program that shares the first
 * one's dependencies, as Temporal's server, tools and CLI do, builds in a fraction of the time.
 * Pure Go (no cgo), so no C toolchain is needed.
 */
export async function goInstall(binDir: string, packages: string[]): Promise<void> {
  await run('go', ['install', ...packages], {
    env: { ...process.env, GOBIN: binDir, CGO_ENABLED: '0' },
    maxBuffer: 64 * 1024 * 1024,
  });
}
