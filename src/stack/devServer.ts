import { Connection } from '@temporalio/client';
import { registerSearchAttributes } from '../temporal/registerSearchAttributes';
import { SEARCH_ATTRIBUTES, searchAttributeCliType } from '../temporal/searchAttributes';
import { spawnChild, waitUntil, type Child, type SpawnOptions } from './children';
import { refuseTakenPorts } from './ports';
import { DEV_SERVER_SQLITE_PRAGMAS, LATENCY_DYNAMIC_CONFIG } from './temporalLatency';

export interface DevServerOptions {
  cliPath: string;
  port: number;
  uiPort?: number;
  /** SQLite file for persistence; without it the server keeps everything in memory. */
  dbFile?: string;
  namespace: string;
  /** Where the Web UI asks to decode compressed payloads (the API's /codec/<secret>). */
  uiCodecEndpoint?: string;
  /** Dynamic config values besides the latency ones (a test lowers a server limit this way). */
  dynamicConfig?: Record<string, string | number>;
  output?: SpawnOptions['onLine'];
}

/** The Temporal CLI's arguments for a dev server with these options. */
export function devServerArgs(options: DevServerOptions): string[] {
  const args = [
    'server',
    'start-dev',
    '--ip',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--namespace',
    options.namespace,
    '--log-level',
    'error',
  ];
  if (options.uiPort) args.push('--ui-port', String(options.uiPort));
  else args.push('--headless');
  if (options.uiPort && options.uiCodecEndpoint) args.push('--ui-codec-endpoint', options.uiCodecEndpoint);
  if (options.dbFile) {
    args.push('--db-filename', options.dbFile);
    for (const pragma of DEV_SERVER_SQLITE_PRAGMAS) args.push('--sqlite-pragma', pragma);
  }
  for (const [key, value] of Object.entries({ ...LATENCY_DYNAMIC_CONFIG, ...options.dynamicConfig }))
    args.push('--dynamic-config-value', `${key}=${value}`);
  for (const { name, type } of SEARCH_ATTRIBUTES)
    args.push('--search-attribute', `${name}=${searchAttributeCliType(type)}`);
  return args;
}

/** The Temporal CLI's dev server: one process with the server, SQLite and the Web UI. */
export async function startDevServer(options: DevServerOptions): Promise<Child> {
  const args = devServerArgs(options);
  // The readiness probe below asks the port, so it would take a server some other process runs
  // there (one an earlier, killed launcher left) for this one.
  await refuseTakenPorts([
    { port: options.port, host: '127.0.0.1', setting: 'TEMPORAL_PORT', what: 'Temporal' },
    { port: options.uiPort ?? 0, host: '127.0.0.1', setting: 'TEMPORAL_UI_PORT', what: 'the Temporal UI' },
  ]);
  const server = spawnChild('temporal', options.cliPath, args, { onLine: options.output });
  try {
    await waitUntil(
      `Temporal on port ${options.port}`,
      server,
      async () => {
        const connection = await Connection.connect({ address: `127.0.0.1:${options.port}`, connectTimeout: 1000 });
        try {
          await connection.workflowService.describeNamespace({ namespace: options.namespace });
          return true;
        } finally {
          await connection.close();
        }
      },
      60_000,
    );
    // The CLI registers --search-attribute only in a database it creates: one kept from an
    // earlier version gets the attributes added since here.
    const connection = await Connection.connect({ address: `127.0.0.1:${options.port}` });
    try {
      await registerSearchAttributes(connection, options.namespace);
    } finally {
      await connection.close();
    }
  } catch (err) {
    // The caller gets no handle on a server that never came up, so nothing else could stop it.
    await server.stop();
    throw err;
  }
  return server;
}
