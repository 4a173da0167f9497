import { mkdir, rm, writeFile } from 'node:fs/promises';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { freePort, startDevServer } from '../../src/stack/devServer';
import { workerProcesses } from '../../src/stack/workerProcesses';
import { startModelStandIn } from './modelStandIn';
import { findTemporalCli } from '../../src/stack/temporalCli';

/**
 * The real stack for tests and benchmarks: a Temporal dev server on free ports, the worker
 * and API processes as built (dist/), each logging to a file under the given directory.
 */
export interface Stack {
  apiUrl: string;
  temporalAddress: string;
  namespace: string;
  apiKey: string;
  otherOrgKey: string;
  /** Where the stack expects the forward proxy for country DE; tests start one there. */
  geoProxyPort: number;
  /** The model stand-in's base URL; its /__control paths script its answers. */
  modelUrl: string;
  /** The environment the API and workers run with, for tests that start more of them. */
  env: NodeJS.ProcessEnv;
  /** Process ids by child name ('api', 'worker fetch,browser'...), for tests that watch their memory. */
  pids: Record<string, number | undefined>;
  /** Stops every process and server of the stack and closes its log files. */
  close(): Promise<void>;
}

/** The host fixture servers listen on; with OTHER_FIXTURE_HOST, the only internal addresses the stack may fetch. */
export const FIXTURE_HOST = '127.0.0.2';

/** A second fixture host, for "another site" in Automate tests (a form posting elsewhere). */
export const OTHER_FIXTURE_HOST = '127.0.0.3';

/**
 * Found by walking up, since this module runs both from test/support/ (jest) and from
 * dist/test/support/ (benchmarks).
 */
export function projectRoot(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
  return dir;
}

export async function startStack(logDir: string, extraEnv: NodeJS.ProcessEnv = {}): Promise<Stack> {
  await rm(logDir, { recursive: true, force: true });
  await mkdir(logDir, { recursive: true });
  const root = projectRoot();
  const logs: WriteStream[] = [];
  const logTo = (name: string) => {
    const stream = createWriteStream(path.join(logDir, `${name}.log`));
    logs.push(stream);
    return (line: string) => stream.write(`${line}\n`);
  };
  const cli = await findTemporalCli(process.env.TEMPORAL_CLI_PATH, (line) => console.log(line));
  const temporalPort = await freePort();
  const apiPort = await freePort();
  const geoProxyPort = await freePort(FIXTURE_HOST);
  const model = await startModelStandIn();
  const namespace = 'default';
  const children: Child[] = [];
  const close = async () => {
    for (const child of [...children].reverse()) await child.stop();
    await model.close();
    await Promise.all(logs.map((stream) => new Promise((resolve) => stream.end(resolve))));
  };
  try {
    children.push(await startDevServer({ cliPath: cli, port: temporalPort, namespace, output: logTo('temporal') }));
    const apiKey = 'test-key-0123456789abcdef';
    const otherOrgKey = 'test-key-other-organization';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      TEMPORAL_NAMESPACE: namespace,
      PORT: String(apiPort),
      HOST: '127.0.0.1',
      API_KEYS: `${apiKey}:test-org,${otherOrgKey}:other-org`,
      CODEC_SECRET: 'test-codec-secret-0123456789',
      ALLOW_INTERNAL_HOSTS: `${FIXTURE_HOST},${OTHER_FIXTURE_HOST}`,
      LOG_LEVEL: 'info',
      BODY_LIMIT_BYTES: '65536',
      // Short, so the tests of slow clients finish quickly.
      HEADERS_TIMEOUT_MS: '1000',
      REQUEST_RECEIVE_TIMEOUT_MS: '2000',
      CACHE_DIR: path.join(logDir, 'cache'),
      CACHE_TTL_SECONDS: '3',
      FETCH_MIN_EFFORT_TIMEOUT_MS: '2000',
      // A page over its reading budget costs the tests this long; every fixture reads in milliseconds.
      CONVERT_TIMEOUT_MS: '8000',
      GEO_PROXIES: `DE=http://${FIXTURE_HOST}:${geoProxyPort}`,
      OPENAI_BASE_URL: model.baseUrl,
      OPENAI_API_KEY: model.apiKey,
      OPENAI_MODEL: model.model,
      MODEL_CONTENT_TOKENS: '2000',
      // Every worker process its own free port (logged as "metrics listening"), the ones tests start too.
      WORKER_METRICS_PORT: '0',
      ...extraEnv,
    };
    const workers = workerProcesses(path.join(root, 'dist/src/workers/main.js'), true, (roles) => ({
      env,
      onLine: logTo(`worker-${roles.split(',')[0]}`),
    }));
    children.push(...workers.map((worker) => worker.spawn()));
    const api = spawnChild('api', process.execPath, [path.join(root, 'dist/src/api/main.js')], {
      env,
      onLine: logTo('api'),
    });
    children.push(api);
    const apiUrl = `http://127.0.0.1:${apiPort}`;
    await waitUntil('the API', api, async () => (await fetch(`${apiUrl}/healthz`)).ok, 60_000);
    await writeFile(path.join(logDir, 'stack.json'), JSON.stringify({ apiUrl, temporalPort }));
    return {
      apiUrl: `${apiUrl}/v1`,
      temporalAddress: `127.0.0.1:${temporalPort}`,
      namespace,
      apiKey,
      otherOrgKey,
      geoProxyPort,
      modelUrl: model.baseUrl.replace(/\/v1$/, ''),
      env,
      pids: Object.fromEntries(children.map((child) => [child.name, child.process.pid])),
      close,
    };
  } catch (err) {
    // A half-started stack would outlive the run (and keep jest from exiting).
    await close();
    throw err;
  }
}

export async function stopStack(stack: Stack): Promise<void> {
  await stack.close();
}
