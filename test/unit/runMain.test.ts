import { ConfigError } from '../../src/config';
import { runMain } from '../../src/config/runMain';

/** What every entry point prints and exits with when its start fails. */
async function failing(err: unknown): Promise<{ printed: unknown[]; exitCode: unknown }> {
  const printed: unknown[] = [];
  const error = jest.spyOn(console, 'error').mockImplementation((value: unknown) => void printed.push(value));
  let exited: (code: unknown) => void = () => undefined;
  const exitCode = new Promise((resolve) => (exited = resolve));
  const exit = jest.spyOn(process, 'exit').mockImplementation((code) => {
    exited(code);
    return undefined as never;
  });
  try {
    runMain(() => Promise.reject(err));
    return { printed, exitCode: await exitCode };
  } finally {
    error.mockRestore();
    exit.mockRestore();
  }
}

describe('runMain', () => {
  it('prints a configuration error as one line naming the variable, and exits with 1', async () => {
    expect(await failing(new ConfigError('PAYLOAD_KEYS', 'not set'))).toEqual({
      printed: ['configuration error: PAYLOAD_KEYS: not set'],
      exitCode: 1,
    });
  });

  it('prints any other error whole, with its stack, and exits with 1', async () => {
    const err = new Error('Temporal is unreachable');
    expect(await failing(err)).toEqual({ printed: [err], exitCode: 1 });
  });
});
