import { ConfigError } from './configError';

/**
 * How long a process whose parent has died keeps stopping gracefully before it exits. The
 * launchers start every process so that the launcher's death sends it SIGTERM (children.ts); by
 * then Temporal and the store are stopping too, so a graceful stop waits on answers that never come:
 * a request's result, a worker's last poll, a flush to the store. Its default grace is 25 s.
 */
const ORPHANED_STOP_MS = 5_000;

/**
 * Prints an error that stops a process. A bad setting is one line that names the variable, for
 * the operator who set it; anything else keeps its stack, for whoever debugs it.
 */
export function printFailure(err: unknown): void {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
}

/**
 * Runs an entry point: when `main` fails, its error is printed and the process exits with 1. Asked
 * to stop after the process that started it has gone, it exits within ORPHANED_STOP_MS however its
 * own stop goes; a process stopped by a living parent (or a container's PID 1) keeps its full grace.
 * A stop signal that comes before `main` has a handler of its own stops the process at once, as it
 * would without this one.
 */
export function runMain(main: () => Promise<void>): void {
  const parent = process.ppid;
  const onStopSignal = (signal: NodeJS.Signals): void => {
    if (process.listenerCount(signal) === 1) {
      // Nothing of main's listens yet: the signal's own default ends the process.
      process.removeListener(signal, onStopSignal);
      process.kill(process.pid, signal);
      return;
    }
    if (process.ppid === parent) return;
    setTimeout(() => {
      console.error(`the process that started this one (pid ${parent}) is gone; stopped without waiting longer`);
      process.exit(1);
    }, ORPHANED_STOP_MS).unref();
  };
  process.on('SIGTERM', onStopSignal);
  process.on('SIGINT', onStopSignal);
  main().catch((err: unknown) => {
    printFailure(err);
    process.exit(1);
  });
}
