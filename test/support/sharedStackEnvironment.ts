import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import path from 'node:path';
import NodeEnvironment from 'jest-environment-node';

type EnvironmentArgs = ConstructorParameters<typeof NodeEnvironment>;

/**
 * The e2e files' environment. Jest runs two files at once (jest.config.js), but the files on the
 * stack the global setup starts take turns: they script its model stand-in, crash and count its
 * processes, and read its logs, so one of them runs at a time, beside a unit or workflow file or
 * an e2e file with a stack of its own (`@stack own`, listed by jest.config.js in
 * `testEnvironmentOptions.ownStackFiles`). The turn is held from before the file's first hook to
 * after its last: a file created exclusively (TEST_TURN_FILE, named by the global setup) that
 * holds its holder's process id, so a holder that died leaves it to the next file.
 */
export default class SharedStackEnvironment extends NodeEnvironment {
  private readonly turnFile?: string;
  private holding = false;

  constructor(config: EnvironmentArgs[0], context: EnvironmentArgs[1]) {
    super(config, context);
    const own = (config.projectConfig.testEnvironmentOptions.ownStackFiles ?? []) as string[];
    if (!own.includes(path.basename(context.testPath))) this.turnFile = process.env.TEST_TURN_FILE;
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (this.turnFile) {
      await takeTurn(this.turnFile);
      this.holding = true;
    }
  }

  override async teardown(): Promise<void> {
    try {
      await super.teardown();
    } finally {
      if (this.holding) rmSync(this.turnFile!, { force: true });
    }
  }
}

const POLL_MS = 100;

async function takeTurn(file: string): Promise<void> {
  for (;;) {
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (!alive(holderOf(file))) rmSync(file, { force: true });
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** The process id in the turn file; 0 when it is empty (its holder is writing it) or gone. */
function holderOf(file: string): number {
  try {
    return Number(readFileSync(file, 'utf8'));
  } catch {
    return 0;
  }
}

/** Whether a process lives; no id (0) counts as alive, so the file is looked at again. */
function alive(pid: number): boolean {
  if (!pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}
