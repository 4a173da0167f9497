import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createWriteStream, existsSync, type WriteStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { embeddedStoreUrl, startEmbeddedStore } from '../../src/billing/embeddedStore';
import { loadConfig, PAYLOAD_KEYS_VARIABLE } from '../../src/config';
import { spawnChild, waitUntil, type Child } from '../../src/stack/children';
import { startCluster } from '../../src/stack/cluster';
import { API_REPLICAS } from '../../src/stack/clusterTopology';
import { startDevServer } from '../../src/stack/devServer';
import { freePort } from '../../src/stack/ports';
import { Supervisor } from '../../src/stack/supervisor';
import { workerProcesses } from '../../src/stack/workerProcesses';
import { startModelStandIn } from './modelStandIn';
import { startNameServer } from './nameServer';
import { TEST_PAYLOAD_KEYS } from './payloadKeys';
import { findTemporalCli } from '../../src/stack/temporalCli';

/**
 * The real stack for tests and benchmarks, its processes as built (dist/), each logging to a
 * file under the given directory, on free ports. Two layouts:
 * - `dev`: what `npm start` runs: the Temporal dev server, two worker processes and one API;
 * - `cluster`: the production topology `npm run start:cluster` runs (src/stack/clusterTopology.ts):
 *   PostgreSQL, Redis, the Temporal server and UI server, two API replicas and two worker
 *   processes of each role, under the supervisor, so a killed process comes back.
 */
export type StackTopology = 'dev' | 'cluster';

/** The layout the tests run on: `TEST_TOPOLOGY=cluster` (npm run test:cluster) or the dev stack. */
export function testTopology(env: NodeJS.ProcessEnv = process.env): StackTopology {
  return env.TEST_TOPOLOGY === 'cluster' ? 'cluster' : 'dev';
}

export interface Stack {
  topology: StackTopology;
  /** The first API's base URL. */
  apiUrl: string;
  /** Every API replica's base URL (one on the dev stack). */
  apiUrls: string[];
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
  /**
   * Process ids at start by child name: 'api', 'worker fetch,browser'... on the dev stack; the
   * topology's service names ('api-1', 'worker-fetch-2'...) on the cluster.
   */
  pids: Record<string, number | undefined>;
  /** The same, now: a process its supervisor started again has a new id (the cluster's only). */
  currentPids(): Record<string, number | undefined>;
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

export async function startStack(
  logDir: string,
  extraEnv: NodeJS.ProcessEnv = {},
  topology: StackTopology = 'dev',
): Promise<Stack> {
  await rm(logDir, { recursive: true, force: true });
  await mkdir(logDir, { recursive: true });
  const logs = new Map<string, WriteStream>();
  // One file per process name: a restarted process writes on after the one it replaces.
  const logTo = (name: string) => {
    const stream = logs.get(name) ?? createWriteStream(path.join(logDir, `${name}.log`));
    logs.set(name, stream);
    return (line: string) => stream.write(`${line}\n`);
  };
  const geoProxyPort = await freePort(FIXTURE_HOST);
  const model = await startModelStandIn();
  const nameServer = await startNameServer(FIXTURE_HOST);
  const namespace = 'default';
  const apiKey = 'test-key-0123456789abcdef';
  const otherOrgKey = 'test-key-other-organization';
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    TEMPORAL_NAMESPACE: namespace,
    HOST: '127.0.0.1',
    API_KEYS: `${apiKey}:test-org,${otherOrgKey}:other-org`,
    CODEC_SECRET: 'test-codec-secret-0123456789',
    [PAYLOAD_KEYS_VARIABLE]: TEST_PAYLOAD_KEYS,
    ALLOW_INTERNAL_HOSTS: `${FIXTURE_HOST},${OTHER_FIXTURE_HOST}`,
    // Page hosts resolve through test/support/nameServer.ts, whose names tests make up.
    DNS_SERVERS: nameServer.address,
    LOG_LEVEL: 'info',
    BODY_LIMIT_BYTES: '65536',
    // Short, so the tests of slow clients finish quickly; long enough that an API process the
    // loaded CI machine leaves unscheduled for a second or two between a request's headers and
    // its body (Node's check then runs before the body is read) does not refuse a whole request.
    HEADERS_TIMEOUT_MS: '3000',
    REQUEST_RECEIVE_TIMEOUT_MS: '5000',
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
    // The suite's many requests come from one organization and one address: none is ever limited
    // but where a test sets an organization's own limits (test/e2e/rateLimits.test.ts).
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_STREAMS: '100000',
    AUTH_FAILURES_PER_MINUTE: '1000000',
    ...extraEnv,
  };
  const stopStandIns = async () => {
    await Promise.all([model.close(), nameServer.close()]);
    await Promise.all([...logs.values()].map((stream) => new Promise((resolve) => stream.end(resolve))));
  };
  const common = {
    topology,
    namespace,
    apiKey,
    otherOrgKey,
    geoProxyPort,
    modelUrl: model.baseUrl.replace(/\/v1$/, ''),
  };
  const started = await (topology === 'cluster' ? startClusterStack : startDevStack)(env, logTo, logDir).catch(
    async (err: unknown) => {
      await stopStandIns();
      throw err;
    },
  );
  await writeFile(
    path.join(logDir, 'stack.json'),
    JSON.stringify({ topology, apiUrls: started.apiUrls, temporalAddress: started.temporalAddress }),
  );
  return {
    ...common,
    ...started,
    apiUrl: started.apiUrls[0]!,
    close: async () => {
      await started.close();
      await stopStandIns();
    },
  };
}

type Started = Pick<Stack, 'apiUrls' | 'temporalAddress' | 'env' | 'pids' | 'currentPids' | 'close'>;

async function startDevStack(
  baseEnv: NodeJS.ProcessEnv,
  logTo: (name: string) => (line: string) => void,
  logDir: string,
): Promise<Started> {
  const root = projectRoot();
  const cli = await findTemporalCli(process.env.TEMPORAL_CLI_PATH, (line) => console.log(line));
  const temporalPort = await freePort();
  const apiPort = await freePort();
  const children: Child[] = [];
  const close = async () => {
    for (const child of [...children].reverse()) await child.stop();
  };
  try {
    children.push(
      await startDevServer({ cliPath: cli, port: temporalPort, namespace: 'default', output: logTo('temporal') }),
    );
    // As `npm start` does: the embedded store, unless the caller names a PostgreSQL.
    const storeDir = path.join(logDir, 'store');
    if (!baseEnv.DATABASE_URL)
      children.push(
        await startEmbeddedStore(storeDir, { onLine: logTo('store'), script: path.join(root, 'dist/src/billing') }),
      );
    const env: NodeJS.ProcessEnv = {
      DATABASE_URL: embeddedStoreUrl(storeDir),
      ...baseEnv,
      TEMPORAL_ADDRESS: `127.0.0.1:${temporalPort}`,
      PORT: String(apiPort),
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
    const pids = Object.fromEntries(children.map((child) => [child.name, child.process.pid]));
    return {
      apiUrls: [`${apiUrl}/v1`],
      temporalAddress: `127.0.0.1:${temporalPort}`,
      env,
      pids,
      currentPids: () => pids,
      close,
    };
  } catch (err) {
    // A half-started stack would outlive the run (and keep jest from exiting).
    await close();
    throw err;
  }
}

async function startClusterStack(
  baseEnv: NodeJS.ProcessEnv,
  logTo: (name: string) => (line: string) => void,
): Promise<Started> {
  // PostgreSQL's data goes where its account (nobody, when we are root) can reach it, whatever the checkout's path.
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'webloom-cluster-'));
  await chmod(dataDir, 0o711);
  const log = logTo('cluster');
  const supervisor = new Supervisor({ log, onGiveUp: (name) => log(`${name} given up`) });
  const close = async () => {
    await supervisor.stop();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    const config = loadConfig(baseEnv);
    const cluster = await startCluster({
      dataDir,
      host: '127.0.0.1',
      apiPorts: Array.from({ length: API_REPLICAS }, () => undefined),
      workerMetricsPort: 0,
      namespace: config.temporal.namespace,
      appEnv: baseEnv,
      taskQueues: config.taskQueues,
      codecEndpoint: ([first]) => `http://localhost:${first}/codec/${config.codec.secret}`,
      payloadKeys: TEST_PAYLOAD_KEYS,
      modelConfigured: true,
      distDir: path.join(projectRoot(), 'dist/src'),
      temporalCliPath: process.env.TEMPORAL_CLI_PATH,
      supervisor,
      log,
      output: logTo,
    });
    const apis = cluster.topology.services.filter((spec) => spec.kind === 'api');
    const env: NodeJS.ProcessEnv = { ...baseEnv, ...apis[0]!.env };
    return {
      apiUrls: apis.map((api) => `http://127.0.0.1:${api.ports.http}/v1`),
      temporalAddress: cluster.topology.appEnv.TEMPORAL_ADDRESS!,
      env,
      pids: cluster.pids(),
      currentPids: cluster.pids,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export async function stopStack(stack: Stack): Promise<void> {
  await stack.close();
}
