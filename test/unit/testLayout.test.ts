import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';

/**
 * Jest runs the test files of the tier directories only (jest.config.js); a test file anywhere
 * else under test/ would never run, silently.
 */
const TEST_ROOT = path.resolve(__dirname, '..');
const TIERS = ['unit', 'workflow', 'e2e', 'chaos'];

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

const SUPPORT = path.join(TEST_ROOT, 'support');

/** The test/support modules an import list names, by file name without extension. */
function supportImports(source: string): string[] {
  return [...source.matchAll(/from '(?:\.\.\/support|\.)\/([A-Za-z]+)'/g)].map((match) => match[1]!);
}

/** The support modules that read the shared stack's settings, directly or through another module. */
function stackReadingModules(): Set<string> {
  const sources = new Map(
    readdirSync(SUPPORT)
      .filter((file) => file.endsWith('.ts'))
      .map((file) => [file.slice(0, -3), readFileSync(path.join(SUPPORT, file), 'utf8')]),
  );
  const reading = new Set([...sources].filter(([, source]) => READS_STACK.test(source)).map(([name]) => name));
  for (let grew = true; grew;) {
    grew = false;
    for (const [name, source] of sources) {
      if (reading.has(name) || !supportImports(source).some((used) => reading.has(used))) continue;
      reading.add(name);
      grew = true;
    }
  }
  return reading;
}

/** What the global setup hands test files (test/support/e2eSetup.ts). */
const READS_STACK = /process\.env\.TEST_|__STACK__/;

/** A test file reaches the stack through those, or asks which topology runs. */
const TEST_READS_STACK = /process\.env\.TEST_|__STACK__|testTopology\(/;

it('leaves out of the cluster run only files that never reach its stack', async () => {
  const saved = process.env.TEST_TOPOLOGY;
  process.env.TEST_TOPOLOGY = 'cluster';
  try {
    await jest.isolateModulesAsync(async () => {
      const config = (await import(path.join(TEST_ROOT, '..', 'jest.config.js'))) as {
        projects: { displayName: string; testPathIgnorePatterns?: string[] }[];
      };
      const ignored = config.projects.find((project) => project.displayName === 'e2e')!.testPathIgnorePatterns ?? [];
      const e2eFiles = testFiles(path.join(TEST_ROOT, 'e2e'));
      const left = e2eFiles.filter((file) =>
        ignored.some((pattern) => new RegExp(pattern).test(`/test/e2e/${path.basename(file)}`)),
      );
      const marked = e2eFiles.filter((file) =>
        /^ \* @stack own$/m.test(readFileSync(path.join(TEST_ROOT, file), 'utf8')),
      );
      expect(left).toEqual(marked);
      const stackModules = stackReadingModules();
      const reaching = marked.filter((file) => {
        const source = readFileSync(path.join(TEST_ROOT, file), 'utf8');
        return TEST_READS_STACK.test(source) || supportImports(source).some((used) => stackModules.has(used));
      });
      expect(reaching).toEqual([]);
    });
  } finally {
    if (saved === undefined) delete process.env.TEST_TOPOLOGY;
    else process.env.TEST_TOPOLOGY = saved;
  }
});
