import path from 'node:path';
import { stringify } from 'yaml';
import { SEARCH_ATTRIBUTES, searchAttributeCliType } from '../temporal/searchAttributes';
import { LATENCY_DYNAMIC_CONFIG } from './temporalLatency';
import { WORKER_NODE_FLAGS } from './workerProcesses';

/**
 * The production topology as data: every service of a webloom deployment, its command, the
 * environment and ports it needs, the config files it reads, and the one-off setup steps that
 * come before it. `npm run start:cluster` runs it as plain processes on one machine; the
 * container files describe the same services, and their tests compare them with this module.
 *
 * PostgreSQL holds Temporal's history and visibility; one Temporal server process runs the four
 * Temporal services (frontend, history, matching, worker); the Temporal UI server reads through
 * the frontend and decodes payloads through an API replica's /codec; Redis holds the result
 * cache every API and worker shares; two API replicas serve the same runs; and every worker role
 * runs in processes of its own, two of each, so losing one never stops a kind of work.
 */

/** The Temporal server the pinned CLI (v1.5.1) embeds, so both run the same server code. */
export const TEMPORAL_SERVER_VERSION = '1.29.1';
/** The UI server the pinned CLI embeds. */
export const TEMPORAL_UI_SERVER_VERSION = '2.42.1';

export const API_REPLICAS = 2;
/** Worker processes per role. */
export const WORKER_REPLICAS = 2;
/** One role per worker process, so each tier scales, and fails, on its own. */
export const CLUSTER_WORKER_ROLES = ['workflow', 'fetch', 'browser', 'model'] as const;
export type ClusterWorkerRole = (typeof CLUSTER_WORKER_ROLES)[number];

/** The worker processes of the cluster, role by role; the model role only when a model is configured. */
export function clusterWorkers(modelConfigured: boolean): { name: string; role: ClusterWorkerRole }[] {
  return CLUSTER_WORKER_ROLES.filter((role) => role !== 'model' || modelConfigured).flatMap((role) =>
    Array.from({ length: WORKER_REPLICAS }, (_, i) => ({ name: `worker-${role}-${i + 1}`, role })),
  );
}

/** Temporal's SQL plugin for PostgreSQL 12 and later. */
export const TEMPORAL_SQL_PLUGIN = 'postgres12';
/** The databases Temporal uses, with the schema the sql tool (which embeds them) installs in each. */
export const TEMPORAL_DATABASES = [
  { name: 'temporal', schema: 'postgresql/v12/temporal' },
  { name: 'temporal_visibility', schema: 'postgresql/v12/visibility' },
] as const;
/** The service's own database (organizations, keys, credits) on the same PostgreSQL server. */
export const SERVICE_DATABASE = 'webloom';
/** The PostgreSQL role Temporal connects as (the instance's superuser, since the instance is Temporal's alone). */
export const POSTGRES_USER = 'temporal';
/**
 * Fixed for the life of a cluster (history is partitioned by it), so chosen once: four shards
 * spread one machine's load over the history service's goroutines without the cost of many.
 */
export const NUM_HISTORY_SHARDS = 4;
export const NAMESPACE_RETENTION = '72h';
export const TEMPORAL_SERVICES = ['frontend', 'history', 'matching', 'worker'] as const;

/** A custom search attribute the namespace is set up with (`temporal operator search-attribute create`). */
export interface SearchAttributeSpec {
  name: string;
  type: 'Keyword' | 'Text' | 'Int' | 'Double' | 'Bool' | 'Datetime' | 'KeywordList';
}

/** The search attributes our workflows set; the cluster registers each at setup. */
export const CLUSTER_SEARCH_ATTRIBUTES: readonly SearchAttributeSpec[] = SEARCH_ATTRIBUTES.map(({ name, type }) => ({
  name,
  type: searchAttributeCliType(type) as SearchAttributeSpec['type'],
}));

export type ServiceKind = 'postgres' | 'redis' | 'temporal' | 'temporal-ui' | 'api' | 'worker';

export interface ConfigFile {
  path: string;
  content: string;
}

export interface ServiceSpec {
  /** Unique: 'postgres', 'temporal', 'api-1', 'worker-fetch-2'... */
  name: string;
  kind: ServiceKind;
  /** The worker role, for kind 'worker'. */
  role?: ClusterWorkerRole;
  /** Program, then arguments. */
  command: string[];
  /** What the topology sets; API and worker processes also get the shared application environment. */
  env: Record<string, string>;
  /** What it listens on, by purpose. */
  ports: Record<string, number>;
  /** Kinds that must be up before it starts. */
  dependsOn: ServiceKind[];
  /** Files it reads, written before it starts. */
  files: ConfigFile[];
}

/** A one-off command run once the service it needs is up; running it again must do no harm. */
export interface SetupStep {
  name: string;
  after: ServiceKind;
  command: string[];
  env: Record<string, string>;
  /** Output of a failure that only means the step was done before (a database that exists). */
  alreadyDone?: RegExp;
}

export interface ClusterPorts {
  postgres: number;
  redis: number;
  frontend: number;
  frontendHttp: number;
  history: number;
  matching: number;
  temporalWorker: number;
  /**
   * Ringpop membership ports, one per Temporal service, in TEMPORAL_SERVICES order. Below 32768:
   * the server records them in a SMALLINT column and fails to join its own cluster otherwise.
   */
  membership: [number, number, number, number];
  ui: number;
  /** One per API replica. */
  apis: number[];
  /** The /metrics, /health and /ready port of each worker process, in the order of clusterWorkers. */
  workerMetrics: number[];
}

export interface ClusterBinaries {
  node: string;
  postgres: string;
  redis: string;
  temporalServer: string;
  temporalSqlTool: string;
  temporalUiServer: string;
  temporalCli: string;
}

export interface ClusterSettings {
  /** The address every service binds and is reached on. */
  host: string;
  ports: ClusterPorts;
  binaries: ClusterBinaries;
  /** The built service, `dist/src`. */
  distDir: string;
  /** Where the generated config files go. */
  configDir: string;
  postgresDataDir: string;
  postgresPassword: string;
  namespace: string;
  /** Where the Web UI (in a browser) sends payloads to decode: an API's `/codec/<secret>`. */
  codecEndpoint: string;
  /** PAYLOAD_KEYS: one set for every API and worker, or one could not read what another wrote. */
  payloadKeys: string;
  /** Whether a model is configured: without one there is no model role to run. */
  modelConfigured: boolean;
  searchAttributes?: readonly SearchAttributeSpec[];
}

export interface ClusterTopology {
  services: ServiceSpec[];
  setup: SetupStep[];
  /** What every API and worker process is given to find the rest, and to read each other's payloads. */
  appEnv: Record<string, string>;
}

function sqlStore(settings: ClusterSettings, databaseName: string, maxConns: number): Record<string, unknown> {
  return {
    sql: {
      pluginName: TEMPORAL_SQL_PLUGIN,
      databaseName,
      connectAddr: `${settings.host}:${settings.ports.postgres}`,
      connectProtocol: 'tcp',
      user: POSTGRES_USER,
      password: settings.postgresPassword,
      maxConns,
      maxIdleConns: maxConns,
      maxConnLifetime: '1h',
    },
  };
}

/** Temporal's static config (its `config/<env>.yaml`), for all four services in one process. */
export function temporalServerConfig(settings: ClusterSettings, dynamicConfigPath: string): Record<string, unknown> {
  const { ports, host } = settings;
  const grpc = [ports.frontend, ports.history, ports.matching, ports.temporalWorker];
  const services = Object.fromEntries(
    TEMPORAL_SERVICES.map((service, i) => [
      service,
      {
        rpc: {
          grpcPort: grpc[i],
          membershipPort: ports.membership[i],
          bindOnIP: host,
          ...(service === 'frontend' ? { httpPort: ports.frontendHttp } : {}),
        },
      },
    ]),
  );
  return {
    log: { stdout: true, level: 'warn' },
    persistence: {
      defaultStore: 'postgres-default',
      visibilityStore: 'postgres-visibility',
      numHistoryShards: NUM_HISTORY_SHARDS,
      datastores: {
        'postgres-default': sqlStore(settings, TEMPORAL_DATABASES[0].name, 20),
        'postgres-visibility': sqlStore(settings, TEMPORAL_DATABASES[1].name, 10),
      },
    },
    global: { membership: { maxJoinDuration: '30s', broadcastAddress: host } },
    services,
    clusterMetadata: {
      enableGlobalNamespace: false,
      failoverVersionIncrement: 10,
      masterClusterName: 'active',
      currentClusterName: 'active',
      clusterInformation: {
        active: {
          enabled: true,
          initialFailoverVersion: 1,
          rpcName: 'frontend',
          rpcAddress: `${host}:${ports.frontend}`,
        },
      },
    },
    dcRedirectionPolicy: { policy: 'noop' },
    dynamicConfigClient: { filepath: dynamicConfigPath, pollInterval: '10s' },
  };
}

/** Temporal's dynamic config file: each key a list of values with (here, no) constraints. */
export function temporalDynamicConfig(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(LATENCY_DYNAMIC_CONFIG).map(([key, value]) => [key, [{ value, constraints: {} }]]),
  );
}

/** The UI server's config (its `config/<env>.yaml`). */
export function temporalUiConfig(settings: ClusterSettings): Record<string, unknown> {
  return {
    host: settings.host,
    port: settings.ports.ui,
    temporalGrpcAddress: `${settings.host}:${settings.ports.frontend}`,
    enableUi: true,
    defaultNamespace: settings.namespace,
    // Served over plain HTTP on loopback; a Secure cookie would never come back and the UI's
    // CSRF check would refuse every action. Behind TLS, turn this off.
    cors: { cookieInsecure: true },
    codec: { endpoint: settings.codecEndpoint },
    notifyOnNewVersion: false,
    hideLogs: true,
  };
}

export const MAX_MEMBERSHIP_PORT = 32767;

export function clusterTopology(settings: ClusterSettings): ClusterTopology {
  const { host, ports, binaries, configDir } = settings;
  const tooHigh = ports.membership.find((port) => port > MAX_MEMBERSHIP_PORT);
  if (tooHigh) throw new Error(`membership port ${tooHigh} is above ${MAX_MEMBERSHIP_PORT}; Temporal cannot record it`);
  const temporalAddress = `${host}:${ports.frontend}`;
  const serverConfigDir = path.join(configDir, 'temporal');
  const dynamicConfigPath = path.join(serverConfigDir, 'dynamicconfig.yaml');
  const uiConfigDir = path.join(configDir, 'temporal-ui');
  const appEnv = {
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: settings.namespace,
    REDIS_URL: `redis://${host}:${ports.redis}`,
    PAYLOAD_KEYS: settings.payloadKeys,
  };
  // The API's alone: workers never touch organizations or credits.
  const databaseUrl = `postgresql://${POSTGRES_USER}:${encodeURIComponent(settings.postgresPassword)}@${host}:${ports.postgres}/${SERVICE_DATABASE}`;
  const workers = clusterWorkers(settings.modelConfigured);
  if (ports.workerMetrics.length !== workers.length)
    throw new Error(`${workers.length} worker processes need as many metrics ports, not ${ports.workerMetrics.length}`);
  const services: ServiceSpec[] = [
    {
      name: 'postgres',
      kind: 'postgres',
      // Loopback TCP only: no Unix socket, whose default directory belongs to the system's PostgreSQL.
      command: [binaries.postgres, '-D', settings.postgresDataDir, '-h', host, '-p', String(ports.postgres), '-k', ''],
      env: {},
      ports: { postgres: ports.postgres },
      dependsOn: [],
      files: [],
    },
    {
      name: 'redis',
      kind: 'redis',
      // A cache: nothing to persist, and bounded like the compose file's.
      command: [
        binaries.redis,
        '--bind',
        host,
        '--port',
        String(ports.redis),
        '--save',
        '',
        '--appendonly',
        'no',
        '--maxmemory',
        '512mb',
        '--maxmemory-policy',
        'allkeys-lru',
      ],
      env: {},
      ports: { redis: ports.redis },
      dependsOn: [],
      files: [],
    },
    {
      name: 'temporal',
      kind: 'temporal',
      command: [
        binaries.temporalServer,
        '--root',
        serverConfigDir,
        '--config',
        '.',
        '--env',
        'cluster',
        '--allow-no-auth',
        'start',
        ...TEMPORAL_SERVICES.flatMap((service) => ['--service', service]),
      ],
      env: {},
      ports: {
        frontend: ports.frontend,
        frontendHttp: ports.frontendHttp,
        history: ports.history,
        matching: ports.matching,
        worker: ports.temporalWorker,
        ...Object.fromEntries(TEMPORAL_SERVICES.map((service, i) => [`${service}Membership`, ports.membership[i]])),
      },
      dependsOn: ['postgres'],
      files: [
        {
          path: path.join(serverConfigDir, 'cluster.yaml'),
          content: stringify(temporalServerConfig(settings, dynamicConfigPath)),
        },
        { path: dynamicConfigPath, content: stringify(temporalDynamicConfig()) },
      ],
    },
    {
      name: 'temporal-ui',
      kind: 'temporal-ui',
      command: [binaries.temporalUiServer, '--root', uiConfigDir, '--config', '.', '--env', 'ui', 'start'],
      env: {},
      ports: { ui: ports.ui },
      dependsOn: ['temporal'],
      files: [{ path: path.join(uiConfigDir, 'ui.yaml'), content: stringify(temporalUiConfig(settings)) }],
    },
    ...workers.map(({ name, role }, i): ServiceSpec => ({
      name,
      kind: 'worker',
      role,
      command: [binaries.node, ...WORKER_NODE_FLAGS, path.join(settings.distDir, 'workers', 'main.js')],
      // Every process of one machine its own port: the default one for all of them was taken by the first.
      env: { ...appEnv, WORKER_ROLES: role, WORKER_METRICS_PORT: String(ports.workerMetrics[i]) },
      ports: { metrics: ports.workerMetrics[i]! },
      dependsOn: ['temporal', 'redis'],
      files: [],
    })),
    ...ports.apis.map((port, i): ServiceSpec => ({
      name: `api-${i + 1}`,
      kind: 'api',
      command: [binaries.node, path.join(settings.distDir, 'api', 'main.js')],
      env: { ...appEnv, DATABASE_URL: databaseUrl, HOST: host, PORT: String(port) },
      ports: { http: port },
      dependsOn: ['temporal', 'redis'],
      files: [],
    })),
  ];
  return { services, setup: setupSteps(settings), appEnv };
}

function setupSteps(settings: ClusterSettings): SetupStep[] {
  const { binaries, host, ports } = settings;
  const sqlEnv = {
    SQL_PLUGIN: TEMPORAL_SQL_PLUGIN,
    SQL_HOST: host,
    SQL_PORT: String(ports.postgres),
    SQL_USER: POSTGRES_USER,
    SQL_PASSWORD: settings.postgresPassword,
  };
  const schema = TEMPORAL_DATABASES.flatMap(({ name, schema }): SetupStep[] => {
    const sql = (step: string, args: string[]): SetupStep => ({
      name: `${step} ${name}`,
      after: 'postgres',
      command: [binaries.temporalSqlTool, '--db', name, ...args],
      env: sqlEnv,
    });
    return [
      // Succeeds on a database that exists.
      sql('create database', ['create-database']),
      // Version tables only (idempotent); the versioned updates below create the tables.
      sql('set up schema of', ['setup-schema', '-v', '0.0']),
      // Applies only what is newer than the database's version: a new server version's changes.
      sql('update schema of', ['update-schema', '--schema-name', schema]),
    ];
  });
  const cli = (args: string[]) => [
    binaries.temporalCli,
    'operator',
    ...args,
    '--address',
    `${host}:${ports.frontend}`,
    '--namespace',
    settings.namespace,
  ];
  return [
    ...schema,
    {
      // Tables come from the service's own migrations, which each API replica runs at start.
      name: `create database ${SERVICE_DATABASE}`,
      after: 'postgres',
      command: [binaries.temporalSqlTool, '--db', SERVICE_DATABASE, 'create-database'],
      env: sqlEnv,
    },
    {
      name: `create namespace ${settings.namespace}`,
      after: 'temporal',
      command: cli(['namespace', 'create', '--retention', NAMESPACE_RETENTION]),
      env: {},
      alreadyDone: /already exists|already registered/i,
    },
    ...(settings.searchAttributes ?? CLUSTER_SEARCH_ATTRIBUTES).map((attribute): SetupStep => ({
      name: `add search attribute ${attribute.name}`,
      after: 'temporal',
      command: cli(['search-attribute', 'create', '--name', attribute.name, '--type', attribute.type]),
      env: {},
      alreadyDone: /already exists/i,
    })),
  ];
}
