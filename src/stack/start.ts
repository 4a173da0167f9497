import path from 'node:path';
import { PAYLOAD_KEYS_VARIABLE, type Config } from '../config';
import { modelProblem } from '../operations/availability';
import { embeddedStoreUrl, startEmbeddedStore } from '../billing/embeddedStore';
import { LAUNCHER_READY_MS } from '../config/timeouts';
import { childLineFormat } from '../telemetry/logFormat';
import { formatChildLines, spawnChild, waitUntil } from './children';
import { startDevServer } from './devServer';
import { refuseTakenPorts, type WantedPort } from './ports';
import { runSupervised } from './runSupervised';
import type { Supervisor } from './supervisor';
import { keptPayloadKeys, keptSecret } from './keptSecret';
import { findTemporalCli } from './temporalCli';
import { serves, untilServing } from './untilServing';
import { workerMetricsPort, workerProcesses } from './workerProcesses';

/**
 * `npm start`: the whole service on one machine. A Temporal dev server persisting to SQLite
 * in the data directory, the workers and the API, each its own process. A process that crashes
 * is restarted (runs resume from the database); Ctrl-C stops them all.
 */

async function startStack(config: Config, supervisor: Supervisor): Promise<void> {
  let devKey: string | undefined;
  formatChildLines(childLineFormat(config.logFormat, process.stdout.isTTY));
  // Children write JSON whatever this terminal is: their lines are made readable here, once.
  const env: NodeJS.ProcessEnv = { ...process.env, LOG_FORMAT: 'json' };
  if (config.apiKeys.size === 0) {
    devKey = await keptSecret(config.dataDir, 'dev-api-key', 'wl_dev_');
    env.API_KEYS = `${devKey}:dev`;
  }
  // The Web UI's way into /codec: it cannot send a key, so its endpoint carries this secret.
  env.CODEC_SECRET = config.codec.secret ?? (await keptSecret(config.dataDir, 'codec-secret', 'wl_codec_'));
  if (!config.codec.keys) env[PAYLOAD_KEYS_VARIABLE] = await keptPayloadKeys(config.dataDir);
  // The playground links each run to the Web UI this launcher starts.
  env.TEMPORAL_UI_URL = config.temporalUiUrl ?? `http://localhost:${config.embedded.temporalUiPort}`;
  env.TEMPORAL_ADDRESS = `127.0.0.1:${config.embedded.temporalPort}`;
  // Organizations, keys and credits: the embedded store unless DATABASE_URL names a PostgreSQL.
  const storeDir = path.join(config.dataDir, 'store');
  if (!config.billing.databaseUrl) env.DATABASE_URL = embeddedStoreUrl(storeDir);
  const metricsPort = (index: number) => workerMetricsPort(config.metrics.workerPort, index);
  const workers = workerProcesses(
    path.join(__dirname, '..', 'workers', 'main.js'),
    !modelProblem(config.model),
    (_, index) => ({
      env: { ...env, WORKER_METRICS_PORT: String(metricsPort(index)) },
    }),
  );
  const apiPort: WantedPort = { port: config.port, host: config.host, setting: 'PORT', what: 'the API' };
  await refuseTakenPorts([
    { port: config.embedded.temporalPort, host: '127.0.0.1', setting: 'TEMPORAL_PORT', what: 'Temporal' },
    { port: config.embedded.temporalUiPort, host: '127.0.0.1', setting: 'TEMPORAL_UI_PORT', what: 'the Temporal UI' },
    apiPort,
    ...workers.map((worker, index) => ({
      port: metricsPort(index),
      host: config.host,
      setting: 'WORKER_METRICS_PORT',
      what: `metrics of the ${worker.name}`,
    })),
  ]);
  const cli = await findTemporalCli(config.embedded.temporalCliPath, (line) => console.log(line));
  const devServer = {
    cliPath: cli,
    port: config.embedded.temporalPort,
    uiPort: config.embedded.temporalUiPort,
    dbFile: path.join(config.dataDir, 'temporal.db'),
    namespace: config.temporal.namespace,
    uiCodecEndpoint: `http://localhost:${config.port}/codec/${env.CODEC_SECRET}`,
  };
  if (!config.billing.databaseUrl) await supervisor.add('store', () => startEmbeddedStore(storeDir));
  // Restarted on the same port with the same database, so runs in progress carry on.
  await supervisor.add('temporal', () => startDevServer(devServer));
  for (const worker of workers) await supervisor.add(worker.name, async () => worker.spawn());
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const baseUrl = `http://${host}:${config.port}/v1`;
  const workerMetrics = config.metrics.workerPort
    ? `ports ${workers.map((_, index) => metricsPort(index)).join(', ')}`
    : 'free ports (see their logs)';
  await supervisor.add('api', async () => {
    // Otherwise the probe below would take an API some other process runs for this one.
    await refuseTakenPorts([apiPort]);
    const api = spawnChild('api', process.execPath, [path.join(__dirname, '..', 'api', 'main.js')], { env });
    await waitUntil('the API', api, async () => (await fetch(`http://${host}:${config.port}/healthz`)).ok, 60_000);
    return api;
  });
  const origin = `http://${host}:${config.port}`;
  await untilServing(origin, LAUNCHER_READY_MS, supervisor.stopSignal);
  const playground = (await serves(origin, '/')) ? [`  Playground     ${origin}/`] : [];
  const mcp = (await serves(origin, '/mcp')) ? [`  MCP            ${origin}/mcp`] : [];
  console.log(
    [
      '',
      'webloom is running',
      `  API base URL   ${baseUrl}`,
      ...playground,
      ...mcp,
      devKey
        ? `  API key        ${devKey}   (development key, kept in ${path.join(config.dataDir, 'dev-api-key')})`
        : '  API keys       from API_KEYS',
      `  Temporal UI    http://localhost:${config.embedded.temporalUiPort}`,
      `  Metrics        http://${host}:${config.port}/metrics; the workers' on ${workerMetrics}`,
      '',
      'Try it:',
      `  curl -s ${baseUrl}/extract/markdown -H "Authorization: Bearer ${devKey ?? '<your key>'}" \\`,
      `    -H "Content-Type: application/json" -d '{"url":"https://example.com"}'`,
      '',
      'A process that crashes is restarted; Ctrl-C stops everything.',
      '',
    ].join('\n'),
  );
}

runSupervised('stack', startStack);
