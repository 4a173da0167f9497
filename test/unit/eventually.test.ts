import { eventually } from '../support/eventually';

/** The tests' wait: an error it cannot outlast ends it at once, with that error. */
describe('eventually', () => {
  it('keeps checking through errors until the condition holds', async () => {
    let checks = 0;
    const value = await eventually(
      () => {
        if (++checks < 3) throw new Error('not yet');
        return 'up';
      },
      { what: 'it to be up', timeoutMs: 1000, intervalMs: 1 },
    );
    expect({ value, checks }).toEqual({ value: 'up', checks: 3 });
  });

  it('throws an error that stopOn names at once, not after the timeout', async () => {
    class Gone extends Error {}
    let checks = 0;
    const started = Date.now();
    await expect(
      eventually(
        () => {
          checks++;
          throw new Gone('the process exited');
        },
        { what: 'it to be up', timeoutMs: 5000, intervalMs: 1, stopOn: (err) => err instanceof Gone },
      ),
    ).rejects.toThrow('the process exited');
    expect(checks).toBe(1);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('names what it waited for and the last error when time runs out', async () => {
    await expect(
      eventually(
        () => {
          throw new Error('refused');
        },
        { what: 'the API', timeoutMs: 20, intervalMs: 1 },
      ),
    ).rejects.toThrow('timed out after 20 ms waiting for the API; last error: Error: refused');
  });
});
