import { mkdir } from 'node:fs/promises';
import { loadConfig, type Config } from '../config';
import { printFailure, runMain } from '../config/runMain';
import { Supervisor } from './supervisor';

/** How often a launcher checks that the process that started it is still there. */
const PARENT_CHECK_MS = 1000;

/**
 * A launcher's life around `start`, which starts the children under the supervisor and returns
 * once they are up: Ctrl-C or SIGTERM stops them all, and so does a child that keeps crashing
 * (then the launcher exits with an error), or a start that fails (its error printed first).
 *
 * The launcher also stops everything once it is orphaned: `npm start` killed with SIGKILL takes
 * no launcher with it, and the children would run on unsupervised. Its children go with it in
 * turn, however it dies (see parentDeathSignal in children.ts).
 */
export function runSupervised(what: string, start: (config: Config, supervisor: Supervisor) => Promise<void>): void {
  const main = async () => {
    const config = loadConfig();
    await mkdir(config.dataDir, { recursive: true });
    let stopping = false;
    const stopAll = async (code: number): Promise<never> => {
      if (!stopping) {
        stopping = true;
        console.log('stopping...');
        await supervisor.stop();
      }
      process.exit(code);
    };
    const supervisor = new Supervisor({
      log: (line) => console.error(`[supervisor] ${line}`),
      onGiveUp: (name) => {
        console.error(`[supervisor] ${name} keeps crashing; stopping the ${what}`);
        void stopAll(1);
      },
    });
    process.once('SIGINT', () => void stopAll(0));
    process.once('SIGTERM', () => void stopAll(0));
    const parent = process.ppid;
    const watchingParent = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watchingParent);
      console.error(`the process that started the ${what} (pid ${parent}) is gone; stopping the ${what}`);
      void stopAll(1);
    }, PARENT_CHECK_MS).unref();
    try {
      await start(config, supervisor);
    } catch (err) {
      // Stopping during the start fails the start; that is no error to report.
      if (stopping) return;
      printFailure(err);
      await stopAll(1);
    }
  };
  runMain(main);
}
