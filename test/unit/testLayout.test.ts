import { readdirSync } from 'node:fs';
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
