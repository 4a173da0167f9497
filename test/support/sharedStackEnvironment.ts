import { closeSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
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
 * holds its holder's process id and test file, so a holder that died leaves it to the next file,
 * and one that holds it longer than any file runs is named and passed by.
 */
export default class SharedStackEnvironment extends NodeEnvironment {
  private readonly turnFile?: string;
  private readonly testFile: string;
  private holding = false;

  constructor(config: EnvironmentArgs[0], context: EnvironmentArgs[1]) {
    super(config, context);
    const own = (config.projectConfig.testEnvironmentOptions.ownStackFiles ?? []) as string[];
    if (!own.includes(path.basename(context.testPath))) this.turnFile = process.env.TEST_TURN_FILE;
    this.testFile = path.relative(config.globalConfig.rootDir, context.testPath);
  }

  override async setup(): Promise<void> {
    await super.setup();
    if (this.turnFile) {
      await takeTurn(this.turnFile, this.testFile);
      this.holding = true;
    }
  }

  override async teardown(): Promise<void> {
    try {
      await super.teardown();
    } finally {
      if (this.holding) giveBackTurn(this.turnFile!, this.testFile);
    }
  }
}

const POLL_MS = 100;
/**
 * Past this, a holder is stuck, not slow: no e2e file runs half as long. Waiting on it for good
 * would hang the run to CI's limit with nothing to show.
 */
const TURN_HELD_AT_MOST_MS = 20 * 60_000;

/**
 * How long a worker that has just given the turn back leaves it to the others: its next file's
 * setup comes within milliseconds, before a waiter's next look, so without this pause one worker
 * took every turn in a row while a file in the other waited 14 minutes (a cluster run).
 */
const GIVEN_BACK_PAUSE_MS = 3 * POLL_MS;

export async function takeTurn(file: string, testFile: string, heldAtMostMs = TURN_HELD_AT_MOST_MS): Promise<void> {
  for (; ; await new Promise((resolve) => setTimeout(resolve, POLL_MS))) {
    if (justGivenBackHere(file)) continue;
    try {
      const fd = openSync(file, 'wx');
      writeSync(fd, `${process.pid} ${testFile}`);
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = holderOf(file);
    if (!alive(holder.pid)) rmSync(file, { force: true });
    else if (holder.forMs > heldAtMostMs) {
      console.error(
        `${testFile}: the shared stack's turn has been held by ${holder.testFile} (pid ${holder.pid}) for ` +
          `${Math.round(holder.forMs / 60_000)} min, longer than any file runs; taking it`,
      );
      rmSync(file, { force: true });
    }
  }
}

/** Removes the turn file if it is still this holder's: one passed by as stuck has no turn to give. */
export function giveBackTurn(file: string, testFile: string): void {
  const holder = holderOf(file);
  if (holder.pid !== process.pid || holder.testFile !== testFile) return;
  writeFileSync(givenBackFile(file), String(process.pid));
  rmSync(file, { force: true });
}

/** Who gave the turn back last: removed with the turn file by the global teardown. */
export const givenBackFile = (file: string): string => `${file}.given-back`;

function justGivenBackHere(file: string): boolean {
  const giver = holderOf(givenBackFile(file));
  return giver.pid === process.pid && giver.forMs < GIVEN_BACK_PAUSE_MS;
}

/** Who wrote a turn file (or the given-back file, which holds only a pid), and how long ago. */
interface Holder {
  /** 0 when the file is empty (its holder is writing it) or gone. */
  pid: number;
  testFile: string;
  forMs: number;
}

function holderOf(file: string): Holder {
  try {
    const forMs = Date.now() - statSync(file).mtimeMs;
    const text = readFileSync(file, 'utf8');
    const space = text.indexOf(' ');
    return space < 0
      ? { pid: Number(text), testFile: '', forMs }
      : { pid: Number(text.slice(0, space)), testFile: text.slice(space + 1), forMs };
  } catch {
    return { pid: 0, testFile: '', forMs: 0 };
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
