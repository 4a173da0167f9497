import { Client, Connection } from '@temporalio/client';
import { ConfigError, loadConfig, type Config } from '../config';
import { requirePayloadKeys } from '../temporal/payloadKeys';
import { runMain } from '../config/runMain';
import { createLogger, type Logger } from '../telemetry/logger';
import { pruneFileCache } from '../cache/fileCache';
import { connectionOptions } from '../temporal/connection';
import { serviceDataConverter } from '../temporal/payloadCodec';
import { createApp } from './app';
import { Store } from '../billing/store';
import { closeApiDeps, createApiDeps } from './deps';
import { createHttpServer } from './httpServer';
import { drain } from './shutdown';

const CACHE_PRUNE_INTERVAL_MS = 10 * 60_000;

/** Temporal may still be starting beside us (compose, the embedded launcher): wait a while for it. */
async function connectWithRetry(config: Config, logger: Logger): Promise<Connection> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      return await Connection.connect(connectionOptions(config.temporal));
    } catch (err) {
      if (Date.now() > deadline) throw err;
      logger.warn({ address: config.temporal.address }, 'Temporal not reachable yet, retrying');
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel, 'api', config.logFormat);
  const { databaseUrl } = config.billing;
  if (config.apiKeys.size === 0 && !databaseUrl)
    throw new ConfigError('API_KEYS', 'no API keys configured; set key:organization pairs, or DATABASE_URL');
  const dataConverter = serviceDataConverter(requirePayloadKeys(config.codec));
  const store = databaseUrl ? await Store.open(databaseUrl) : undefined;
  if (store) await store.bootstrap(config.apiKeys, config.billing.apiKeysCredits);
  else logger.warn('no DATABASE_URL: keys from API_KEYS only, and no credits are charged');
  const connection = await connectWithRetry(config, logger);
  const client = new Client({ connection, namespace: config.temporal.namespace, dataConverter });
  const deps = createApiDeps(config, client, logger, store);
  const app = createApp(deps, logger);
  const server = createHttpServer(app, config.receive).listen(config.port, config.host, () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    logger.info({ url: `http://${config.host}:${port}/v1` }, 'API listening');
  });
  if (config.cache.ttlMs > 0 && !config.cache.redisUrl) {
    const prune = () =>
      pruneFileCache(config.cache.dir, config.cache.ttlMs)
        .then((removed) => removed > 0 && logger.info({ removed }, 'expired cache entries removed'))
        .catch((err: unknown) => logger.warn({ err }, 'cache pruning failed'));
    setInterval(prune, CACHE_PRUNE_INTERVAL_MS).unref();
  }
  server.keepAliveTimeout = 65_000;
  const stop = (): void => {
    logger.info('API shutting down');
    void drain(server, deps, config.shutdownGraceMs, logger)
      .then((drained) => {
        if (!drained) logger.warn('requests still open after SHUTDOWN_GRACE_MS; closing them');
        server.closeAllConnections();
        return closeApiDeps(deps).then(() => connection.close());
      })
      .finally(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

runMain(main);
