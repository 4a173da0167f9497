import path from 'node:path';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { freePort } from '../../src/stack/ports';

const API_MAIN = path.resolve(__dirname, '..', '..', 'dist', 'src', 'api', 'main.js');

const START_LINES_KEPT = 40;

/**
 * The shared stack's settings (test/support/e2eSetup.ts) with `changes` applied; a change to
 * `undefined` removes the setting, as for an API started without a model.
 */
export function stackEnv(changes: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env = { ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv), ...changes };
  for (const [name, value] of Object.entries(changes)) if (value === undefined) delete env[name];
  return env;
}

/** The changes to `stackEnv` for an API without a search engine, whatever the shared stack has. */
export const NO_SEARCH_ENGINE = { SEARXNG_URL: undefined, BRAVE_SEARCH_API_KEY: undefined, SEARCH_ENGINE: undefined };

export interface SecondApi {
  /** Its root, `http://127.0.0.1:<port>`; the operations are under `/v1`. */
  root: string;
  child: Child;
  stop(): Promise<void>;
}

export interface SecondApiOptions {
  /** Its settings, the stack's unless given (see `stackEnv`); PORT is chosen here. */
  env?: NodeJS.ProcessEnv;
  /** Where its output lines go; dropped unless given. */
  onLine?: (line: string) => void;
  /** Whether it counts as up; `/healthz` answering 200 unless given (`/ready` also waits for workers). */
  ready?: (root: string) => Promise<boolean>;
  timeoutMs?: number;
}

/**
 * Starts another API process from dist/ beside the shared stack, for a test that needs settings of
 * its own, and waits until it is up; one that exits or never comes up fails the test, stopped.
 */
export async function startSecondApi(name: string, options: SecondApiOptions = {}): Promise<SecondApi> {
  const port = await freePort();
  const root = `http://127.0.0.1:${port}`;
  // Its last lines, for the failure of a start that never came up.
  const lines: string[] = [];
  const child = spawnChild(name, process.execPath, [API_MAIN], {
    env: { ...(options.env ?? stackEnv()), PORT: String(port) },
    onLine: (line) => {
      options.onLine?.(line);
      if (lines.push(line) > START_LINES_KEPT) lines.shift();
    },
  });
  const ready = options.ready ?? (async (at: string) => (await fetch(`${at}/healthz`)).ok);
  try {
    await waitUntil(`${name} to be up`, child, () => ready(root), options.timeoutMs ?? 45_000);
  } catch (err) {
    throw new Error(`${(err as Error).message}; its last lines:\n${lines.join('\n')}`, { cause: err });
  }
  lines.length = 0;
  return { root, child, stop: () => child.stop() };
}
