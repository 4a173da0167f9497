import { ConfigError } from './configError';

/**
 * Prints an error that stops a process. A bad setting is one line that names the variable, for
 * the operator who set it; anything else keeps its stack, for whoever debugs it.
 */
export function printFailure(err: unknown): void {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
}

/** Runs an entry point: when `main` fails, its error is printed and the process exits with 1. */
export function runMain(main: () => Promise<void>): void {
  main().catch((err: unknown) => {
    printFailure(err);
    process.exit(1);
  });
}
