import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError } from '../config';
import { ERRORS } from '../errors';
import type { Logger } from '../telemetry/logger';
import { metricsAccess } from '../telemetry/metrics/metricsAccess';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';

/** Past this the scrape goes on without the SDK's part rather than time out as a whole. */
const SDK_METRICS_TIMEOUT_MS = 2000;

export interface OpsServerOptions {
  host: string;
  /** 0: a free port, logged. */
  port: number;
  metrics: WorkerMetrics;
  /** The Temporal SDK's Prometheus exporter (loopback), whose text is served after ours. */
  sdkMetricsUrl: string;
  metricsToken?: string;
  /** Whether this process's workers are polling, and each one's state. */
  readiness(): { ready: boolean; workers: Record<string, string> };
  logger: Logger;
}

export interface OpsServer {
  url: string;
  close(): Promise<void>;
}

async function sdkMetrics(url: string): Promise<string> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(SDK_METRICS_TIMEOUT_MS) });
    if (response.ok) return await response.text();
    return `# Temporal SDK metrics unavailable: HTTP ${response.status}\n`;
  } catch (err) {
    return `# Temporal SDK metrics unavailable: ${err instanceof Error ? err.message : String(err)}\n`;
  }
}

function json(res: http.ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * A worker process's own small HTTP server, for the platform rather than clients: /health (the
 * process is up), /ready (its workers are polling) and /metrics, ours and the Temporal SDK's in
 * one answer, so Prometheus scrapes one port per process.
 */
export async function startOpsServer(options: OpsServerOptions): Promise<OpsServer> {
  const mayReadMetrics = metricsAccess(options.metricsToken);
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return json(res, 405, { error: ERRORS.method_not_allowed.message });
    if (path === '/health') return json(res, 200, { status: 'ok' });
    if (path === '/ready') {
      const { ready, workers } = options.readiness();
      return json(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not ready', workers });
    }
    if (path !== '/metrics') return json(res, 404, { error: ERRORS.not_found.message });
    if (!mayReadMetrics(req.headers.authorization)) return json(res, 401, { error: ERRORS.unauthorized.message });
    void Promise.all([options.metrics.registry.metrics(), sdkMetrics(options.sdkMetricsUrl)]).then(
      ([ours, sdk]) =>
        res.writeHead(200, { 'content-type': options.metrics.registry.contentType }).end(`${ours}\n${sdk}`),
      (err: unknown) => {
        options.logger.error({ err }, 'collecting metrics failed');
        json(res, 500, { error: ERRORS.internal.message });
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'EADDRINUSE'
          ? new ConfigError(
              'WORKER_METRICS_PORT',
              `port ${options.port} is taken; give each worker process its own, or 0`,
            )
          : err,
      ),
    );
    server.listen(options.port, options.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${port}`;
  options.logger.info({ url: `${url}/metrics` }, 'metrics listening');
  return {
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
