import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { FileCache } from '../../src/cache/fileCache';

/**
 * The file cache's index: every read of an entry parses its key's whole index file, so an entry
 * refreshed again and again (`nocache` requests) must not grow it.
 */

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'file-cache-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The lines of every index file: one per entry written and kept. */
async function indexLines(): Promise<number> {
  const files = await readdir(path.join(dir, 'index-v5'), { recursive: true, withFileTypes: true });
  let lines = 0;
  for (const file of files.filter((entry) => entry.isFile()))
    lines += (await readFile(path.join(file.parentPath, file.name), 'utf8')).split('\n').filter(Boolean).length;
  return lines;
}

const page = (n: number) => ({ markdown: `# Page ${n}`, metadata: { title: `Page ${n}` }, storedAt: n });

it('keeps one index line for an entry however often it is refreshed, and reads the newest', async () => {
  const cache = new FileCache(dir, 3_600_000);
  for (let i = 0; i < 50; i++) await cache.set('key', page(i));
  await cache.set('other', page(100));
  expect(await indexLines()).toBe(2);
  expect(await cache.get('key')).toEqual(page(49));
  expect(await cache.get('other')).toEqual(page(100));
  expect(await cache.get('missing')).toBeUndefined();
});
