import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { freePort } from '../../src/stack/devServer';
import type { FixtureServer } from './fixtureServer';
import { startResearchCorpus } from './researchCorpus';
import { startSearchStandIn, type SearchStandIn } from './searchStandIn';

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

/** `name` sets its task queues, cache directory and log files apart from other stacks'. */
export async function startResearchStack(name: string): Promise<ResearchStack> {
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
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...(JSON.parse(process.env.TEST_STACK_ENV ?? '{}') as NodeJS.ProcessEnv),
    PORT: String(port),
    TASK_QUEUE_PREFIX: `${name}-e2e`,
    SEARXNG_URL: search.baseUrl,
    CACHE_DIR: path.join(LOGS, `${name}-cache`),
    CACHE_TTL_SECONDS: '600',
    RESEARCH_PAGE_CONCURRENCY: '4',
  };
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
    const api = spawnChild(`${name} api`, process.execPath, [path.join(DIST, 'api/main.js')], {
      env,
      onLine: logTo('api'),
    });
    children.push(api);
    spawnWorker('workflow,model');
    spawnWorker('fetch,browser');
    await waitUntil(`the ${name} API`, api, async () => (await fetch(`http://127.0.0.1:${port}/healthz`)).ok, 60_000);
  } catch (err) {
    await close();
    throw err;
  }
  return { base: `http://127.0.0.1:${port}/v1`, corpus, search, env, workers, spawnWorker, close };
}
