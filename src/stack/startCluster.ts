import path from 'node:path';
import { ConfigError, type Config } from '../config';
import { formatPayloadKeys } from '../temporal/payloadKeys';
import { modelProblem } from '../operations/availability';
import { LAUNCHER_READY_MS } from '../config/timeouts';
import { childLineFormat } from '../telemetry/logFormat';
import { formatChildLines } from './children';
import { startCluster } from './cluster';
import { API_REPLICAS } from './clusterTopology';
import { keptPayloadKeys, keptSecret } from './keptSecret';
import { runSupervised } from './runSupervised';
import type { Supervisor } from './supervisor';
import { serves, untilServing } from './untilServing';

/**
 * `npm run start:cluster`: the production topology on one machine, each service a plain process
 * under the supervisor: PostgreSQL, Redis, the Temporal server and its Web UI, two API replicas
 * and two worker processes of each role. Everything listens on 127.0.0.1; Ctrl-C stops it all.
 */

const HOST = '127.0.0.1';

/** The API replicas listen on PORT, PORT + 1, ...; PORT=0 picks free ports. */
function apiPorts(config: Config): (number | undefined)[] {
  if (config.port + API_REPLICAS - 1 > 65535)
    throw new ConfigError(
      'PORT',
      `the cluster's ${API_REPLICAS} API replicas need PORT at most ${65536 - API_REPLICAS}`,
    );
  return Array.from({ length: API_REPLICAS }, (_, i) => (config.port === 0 ? undefined : config.port + i));
}

async function run(config: Config, supervisor: Supervisor): Promise<void> {
  formatChildLines(childLineFormat(config.logFormat, process.stdout.isTTY));
  // Children write JSON whatever this terminal is: their lines are made readable here, once.
  const appEnv: NodeJS.ProcessEnv = { LOG_FORMAT: 'json' };
  let devKey: string | undefined;
  if (config.apiKeys.size === 0) {
    devKey = await keptSecret(config.dataDir, 'dev-api-key', 'wl_dev_');
    appEnv.API_KEYS = `${devKey}:dev`;
  }
  const codecSecret = config.codec.secret ?? (await keptSecret(config.dataDir, 'codec-secret', 'wl_codec_'));
  appEnv.CODEC_SECRET = codecSecret;
  // The playground links each run to the Web UI this launcher starts.
  appEnv.TEMPORAL_UI_URL = config.temporalUiUrl ?? `http://localhost:${config.embedded.temporalUiPort}`;
  const clusterDir = path.join(config.dataDir, 'cluster');
  const cluster = await startCluster({
    dataDir: clusterDir,
    host: HOST,
    frontendPort: config.embedded.temporalPort,
    uiPort: config.embedded.temporalUiPort,
    apiPorts: apiPorts(config),
    workerMetricsPort: config.metrics.workerPort,
    namespace: config.temporal.namespace,
    appEnv,
    taskQueues: config.taskQueues,
    codecEndpoint: ([first]) => `http://localhost:${first}/codec/${codecSecret}`,
    payloadKeys: config.codec.keys ? formatPayloadKeys(config.codec.keys) : await keptPayloadKeys(config.dataDir),
    modelConfigured: !modelProblem(config.model),
    distDir: path.join(__dirname, '..'),
    temporalCliPath: config.embedded.temporalCliPath,
    postgresBinDir: config.embedded.postgresBinDir,
    supervisor,
    log: (line) => console.log(`[cluster] ${line}`),
  });
  const port = (kind: string, name: string) =>
    cluster.topology.services.find((spec) => spec.kind === kind)?.ports[name];
  const apis = cluster.topology.services.filter((spec) => spec.kind === 'api');
  const workers = cluster.topology.services.filter((spec) => spec.kind === 'worker');
  const origins = apis.map((api) => `http://${HOST}:${api.ports.http}`);
  await Promise.all(origins.map((origin) => untilServing(origin, LAUNCHER_READY_MS, supervisor.stopSignal)));
  const [first] = origins;
  const playground = first && (await serves(first, '/')) ? [`  Playground     ${first}/`] : [];
  const mcp = first && (await serves(first, '/mcp')) ? [`  MCP            ${first}/mcp`] : [];
  console.log(
    [
      '',
      'webloom cluster is running',
      ...apis.map((api) => `  API base URL   http://${HOST}:${api.ports.http}/v1   (${api.name})`),
      ...playground,
      ...mcp,
      devKey
        ? `  API key        ${devKey}   (development key, kept in ${path.join(config.dataDir, 'dev-api-key')})`
        : '  API keys       from API_KEYS',
      `  Temporal UI    http://localhost:${port('temporal-ui', 'ui')}`,
      `  Temporal       ${HOST}:${port('temporal', 'frontend')} (namespace ${config.temporal.namespace})`,
      `  PostgreSQL     ${HOST}:${port('postgres', 'postgres')} (data in ${path.join(clusterDir, 'postgres')})`,
      `  Redis          ${HOST}:${port('redis', 'redis')}`,
      `  Workers        ${workers.map((worker) => `${worker.name} (metrics :${worker.ports.metrics})`).join(', ')}`,
      '',
      'A process that crashes is restarted; Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

runSupervised('cluster', run);
