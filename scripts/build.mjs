// `npm run build` and `npm run build:tools`: `node scripts/build.mjs <tsconfig>`. The compiled
// program (and the playground's bundle, src/playground/build.mjs) is written to a directory
// beside dist/ and then moved into it, each top directory (dist/src, dist/bench, ...) by a rename.
// Deleting dist/src and compiling into it, as before, left it missing or half written for the
// half minute tsc takes: a stack running from it (another `npm start`, a test's) could not start
// or restart a process meanwhile (MODULE_NOT_FOUND). A directory at dist/'s depth keeps the
// source maps' relative paths right once moved.
import { execFileSync } from 'node:child_process';
import { existsSync, renameSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = path.join(root, 'dist');

const tsconfig = process.argv[2];
if (!tsconfig) {
  console.error('usage: node scripts/build.mjs <tsconfig>');
  process.exit(2);
}

await removeAbandoned();
const staging = await mkdtemp(path.join(root, '.dist-build-'));

/**
 * Two renames, one right after the other: the old directory is missing only between them, for
 * microseconds. Another build moving its own in between them makes the second fail (the place is
 * taken again): then again.
 */
function moveIn(entry, tries = 3) {
  const target = path.join(dist, entry);
  try {
    if (existsSync(target)) renameSync(target, path.join(staging, `${entry}.replaced-${tries}`));
    renameSync(path.join(staging, entry), target);
  } catch (err) {
    if (tries === 1 || !['ENOTEMPTY', 'EEXIST', 'ENOENT'].includes(err.code)) throw err;
    moveIn(entry, tries - 1);
  }
}

/** What a build killed midway left (its finally never ran); an hour is far past any build's length. */
async function removeAbandoned() {
  for (const entry of await readdir(root))
    if (entry.startsWith('.dist-build-')) {
      const dir = path.join(root, entry);
      if (Date.now() - (await stat(dir)).mtimeMs > 60 * 60_000) await rm(dir, { recursive: true, force: true });
    }
}
try {
  const run = (script, ...args) => execFileSync(process.execPath, [script, ...args], { cwd: root, stdio: 'inherit' });
  run(require.resolve('typescript/bin/tsc'), '-p', tsconfig, '--outDir', staging);
  run(path.join(root, 'src', 'playground', 'build.mjs'), path.join(staging, 'src', 'playground'));
  await mkdir(dist, { recursive: true });
  for (const entry of await readdir(staging)) moveIn(entry);
} catch (err) {
  // tsc has printed its errors; its exit status is the build's.
  process.exitCode = typeof err.status === 'number' ? err.status : 1;
  if (typeof err.status !== 'number') console.error(err);
} finally {
  await rm(staging, { recursive: true, force: true });
}
