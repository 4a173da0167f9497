import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { giveBackTurn, givenBackFile, takeTurn } from '../support/sharedStackEnvironment';

/** The turn the e2e files on the shared stack take (test/support/sharedStackEnvironment.ts). */
describe('takeTurn', () => {
  const turnFile = () => path.join(mkdtempSync(path.join(os.tmpdir(), 'turn-')), 'turn');

  it('writes its process and test file into a turn nobody holds', async () => {
    const file = turnFile();
    await takeTurn(file, 'test/e2e/a.test.ts');
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid} test/e2e/a.test.ts`);
  });

  it('takes the turn of a holder that has died', async () => {
    const file = turnFile();
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    writeFileSync(file, `${gone.pid} test/e2e/dead.test.ts`);
    await takeTurn(file, 'test/e2e/b.test.ts');
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid} test/e2e/b.test.ts`);
  });

  it('waits for a live holder, and names and passes one stuck past the limit', async () => {
    const file = turnFile();
    writeFileSync(file, `${process.ppid} test/e2e/stuck.test.ts`);
    const errors = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    let taken = false;
    const taking = takeTurn(file, 'test/e2e/c.test.ts', 60_000).then(() => (taken = true));
    // A span in which a wait with no limit, or one that ignores a live holder, would have returned.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(taken).toBe(false);
    const longAgo = new Date(Date.now() - 61_000);
    utimesSync(file, longAgo, longAgo);
    await taking;
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid} test/e2e/c.test.ts`);
    expect(errors).toHaveBeenCalledWith(
      expect.stringContaining(`held by test/e2e/stuck.test.ts (pid ${process.ppid}) for 1 min`),
    );
    errors.mockRestore();
  });

  it('gives back its own turn, and leaves the turn of a file that passed it by', async () => {
    const file = turnFile();
    await takeTurn(file, 'test/e2e/slow.test.ts');
    writeFileSync(file, `${process.pid} test/e2e/next.test.ts`);
    giveBackTurn(file, 'test/e2e/slow.test.ts');
    expect(readFileSync(file, 'utf8')).toBe(`${process.pid} test/e2e/next.test.ts`);
    giveBackTurn(file, 'test/e2e/next.test.ts');
    expect(existsSync(file)).toBe(false);
  });

  it('leaves a turn it gave back to the others for a moment, not one another process gave back', async () => {
    const file = turnFile();
    await takeTurn(file, 'test/e2e/first.test.ts');
    giveBackTurn(file, 'test/e2e/first.test.ts');
    let started = Date.now();
    await takeTurn(file, 'test/e2e/second.test.ts');
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);

    giveBackTurn(file, 'test/e2e/second.test.ts');
    writeFileSync(givenBackFile(file), String(process.ppid));
    started = Date.now();
    await takeTurn(file, 'test/e2e/third.test.ts');
    expect(Date.now() - started).toBeLessThan(250);
  });
});
