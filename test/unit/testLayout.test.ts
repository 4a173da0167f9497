import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Jest runs the test files of the tier directories only (jest.config.js); a test file anywhere
 * else under test/ would never run, silently.
 */
const TEST_ROOT = path.resolve(__dirname, '..');
const TIERS = ['unit', 'workflow', 'e2e'];

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(full);
    return entry.name.endsWith('.test.ts') ? [path.relative(TEST_ROOT, full)] : [];
  });
}

it('keeps every test file in a tier directory', () => {
  const outside = testFiles(TEST_ROOT).filter((file) => !TIERS.includes(file.split(path.sep)[0]!));
  expect(outside).toEqual([]);
});

/**
 * A test that sleeps where a condition exists is flaky on a slow machine: it waits with
 * `eventually` (test/support/eventually.ts) for what it needs. A sleep that is the point of a test
 * (waiting past a TTL, or for something that must not happen) says so in the comment above it.
 */
it('gives every fixed sleep in a test a comment saying why it is not a condition', () => {
  const sleep = /new Promise(<void>)?\(\(resolve\) => setTimeout\(resolve, /;
  const unexplained = testFiles(TEST_ROOT).flatMap((file) => {
    const lines = readFileSync(path.join(TEST_ROOT, file), 'utf8').split('\n');
    return lines.flatMap((line, index) => {
      if (!sleep.test(line)) return [];
      const above = lines
        .slice(0, index)
        .reverse()
        .find((candidate) => candidate.trim() !== '')
        ?.trim();
      return above?.startsWith('//') || above?.endsWith('*/') ? [] : [`${file}:${index + 1}`];
    });
  });
  expect(unexplained).toEqual([]);
});

it('leaves no e2e file out of the cluster run', async () => {
  const saved = process.env.TEST_TOPOLOGY;
  process.env.TEST_TOPOLOGY = 'cluster';
  try {
    await jest.isolateModulesAsync(async () => {
      const config = (await import(path.join(TEST_ROOT, '..', 'jest.config.js'))) as {
        projects: { displayName: string; testPathIgnorePatterns?: string[] }[];
      };
      const e2e = config.projects.find((project) => project.displayName === 'e2e')!;
      expect((e2e.testPathIgnorePatterns ?? []).filter((pattern) => pattern !== '/node_modules/')).toEqual([]);
    });
  } finally {
    if (saved === undefined) delete process.env.TEST_TOPOLOGY;
    else process.env.TEST_TOPOLOGY = saved;
  }
});
