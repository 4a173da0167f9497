import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { spawnChild, type Child } from '../../src/stack/children';
import type { FixtureServer } from './fixtureServer';
import { startResearchCorpus } from './researchCorpus';
import { startSearchStandIn, type SearchStandIn } from './searchStandIn';
import { startSecondApi, stackEnv } from './secondApi';

/**
 * A stack that can research, beside the shared one (whose API has no search engine, so it
 * answers Research with 503): its own API and worker processes, as built in dist/, on their own
 * task queues, with a SearXNG stand-in searching the 33-page corpus served on loopback. It shares
 * the Temporal dev server and the model stand-in of the shared stack.
 */
export interface ResearchStack {
  /** The API's base URL, with /v1. */
  base: string;
  corpus: FixtureServer;
  search: SearchStandIn;
  /** The environment its processes run with. */
  env: NodeJS.ProcessEnv;
  /** The running worker processes, by roles. */
  workers: Map<string, Child>;
  /** Starts a worker process with these roles (in place of one that was killed). */
  spawnWorker(roles: string): Child;
  close(): Promise<void>;
}

const DIST = path.resolve(__dirname, '..', '..', 'dist', 'src');
const LOGS = path.resolve(__dirname, '..', '..', 'data', 'test-logs');

/**
 * `name` sets its task queues, cache directory and log files apart from other stacks'; `changes`
 * are further settings of its processes (see `stackEnv`).
 */
export async function startResearchStack(
  name: string,
  changes: Record<string, string | undefined> = {},
): Promise<ResearchStack> {
  const children: Child[] = [];
  const logs: WriteStream[] = [];
  const workers = new Map<string, Child>();
  const logTo = (file: string) => {
    const stream = createWriteStream(path.join(LOGS, `${name}-${file}.log`));
    logs.push(stream);
    return (line: string) => stream.write(`${line}\n`);
  };
  const corpus = await startResearchCorpus();
  const search = await startSearchStandIn(corpus);
  const env = stackEnv({
    TASK_QUEUE_PREFIX: `${name}-e2e`,
    SEARXNG_URL: search.baseUrl,
    CACHE_DIR: path.join(LOGS, `${name}-cache`),
    CACHE_TTL_SECONDS: '600',
    RESEARCH_PAGE_CONCURRENCY: '4',
    ...changes,
  });
  const spawnWorker = (roles: string): Child => {
    const child = spawnChild(
      `${name} worker ${roles}`,
      process.execPath,
      ['--max-semi-space-size=64', path.join(DIST, 'workers/main.js'), roles],
      { env, onLine: logTo(`worker-${roles.split(',')[0]}`) },
    );
    children.push(child);
    workers.set(roles, child);
    return child;
  };
  const close = async () => {
    await Promise.all(children.map((child) => child.stop()));
    await search.close();
    await corpus.close();
    await Promise.all(logs.map((stream) => new Promise((resolve) => stream.end(resolve))));
  };
  try {
    spawnWorker('workflow,model');
    spawnWorker('fetch,browser');
    const api = await startSecondApi(`${name} api`, { env, onLine: logTo('api') });
    children.push(api.child);
    return { base: `${api.root}/v1`, corpus, search, env, workers, spawnWorker, close };
  } catch (err) {
    await close();
    throw err;
  }
}
