import { parse } from 'yaml';
import {
  API_REPLICAS,
  CLUSTER_WORKER_ROLES,
  clusterTopology,
  TEMPORAL_DATABASES,
  WORKER_REPLICAS,
  type ClusterSettings,
} from '../../src/stack/clusterTopology';
import { LATENCY_DYNAMIC_CONFIG } from '../../src/stack/temporalLatency';

const settings = (overrides: Partial<ClusterSettings> = {}): ClusterSettings => ({
  host: '127.0.0.1',
  ports: {
    postgres: 15432,
    redis: 16379,
    frontend: 17233,
    frontendHttp: 17243,
    history: 17234,
    matching: 17235,
    temporalWorker: 17239,
    membership: [16933, 16934, 16935, 16939],
    ui: 18233,
    apis: [18080, 18081],
    workerMetrics: [19464, 19465, 19466, 19467, 19468, 19469, 19470, 19471],
  },
  binaries: {
    node: 'node',
    postgres: 'postgres',
    redis: 'redis-server',
    temporalServer: 'temporal-server',
    temporalSqlTool: 'temporal-sql-tool',
    temporalUiServer: 'temporal-ui-server',
    temporalCli: 'temporal',
  },
  distDir: '/app/dist/src',
  configDir: '/data/cluster/config',
  postgresDataDir: '/data/cluster/postgres',
  postgresPassword: 'pg-password',
  namespace: 'default',
  codecEndpoint: 'http://localhost:18080/codec/secret',
  payloadKeys: `k1:${Buffer.alloc(32).toString('base64')}`,
  modelConfigured: true,
  ...overrides,
});

const fileOf = (topology: ReturnType<typeof clusterTopology>, name: string, ending: string) => {
  const file = topology.services.find((service) => service.name === name)?.files.find((f) => f.path.endsWith(ending));
  if (!file) throw new Error(`no ${ending} for ${name}`);
  return parse(file.content) as Record<string, unknown>;
};

describe('cluster topology', () => {
  it('runs two API replicas and two worker processes of each role, one role per process', () => {
    const { services } = clusterTopology(settings());
    const apis = services.filter((service) => service.kind === 'api');
    expect(apis.map((api) => api.env.PORT)).toEqual(['18080', '18081']);
    expect(apis).toHaveLength(API_REPLICAS);
    for (const role of CLUSTER_WORKER_ROLES) {
      const workers = services.filter((service) => service.role === role);
      expect(workers).toHaveLength(WORKER_REPLICAS);
      for (const worker of workers) expect(worker.env.WORKER_ROLES).toBe(role);
    }
    expect(new Set(services.map((service) => service.name)).size).toBe(services.length);
  });

  it('gives every worker process a metrics port of its own', () => {
    const workers = clusterTopology(settings()).services.filter((service) => service.kind === 'worker');
    const ports = workers.map((worker) => worker.env.WORKER_METRICS_PORT);
    expect(ports).toEqual(settings().ports.workerMetrics.map(String));
    expect(workers.map((worker) => String(worker.ports.metrics))).toEqual(ports);
  });

  it('leaves the model role out when no model is configured', () => {
    const ports = { ...settings().ports, workerMetrics: settings().ports.workerMetrics.slice(0, 6) };
    const { services } = clusterTopology(settings({ modelConfigured: false, ports }));
    expect(services.filter((service) => service.role === 'model')).toEqual([]);
  });

  it('points every API and worker at the frontend, the namespace, the shared cache and the service database, with the same payload keys', () => {
    const { services, appEnv } = clusterTopology(settings());
    expect(appEnv).toEqual({
      TEMPORAL_ADDRESS: '127.0.0.1:17233',
      TEMPORAL_NAMESPACE: 'default',
      REDIS_URL: 'redis://127.0.0.1:16379',
      PAYLOAD_KEYS: `k1:${Buffer.alloc(32).toString('base64')}`,
    });
    for (const service of services.filter((s) => s.kind === 'api' || s.kind === 'worker'))
      expect(service.env).toMatchObject(appEnv);
    for (const api of services.filter((s) => s.kind === 'api'))
      expect(api.env.DATABASE_URL).toBe('postgresql://temporal:pg-password@127.0.0.1:15432/webloom');
  });

  it('keeps history and visibility in PostgreSQL with the latency settings in the dynamic config', () => {
    const topology = clusterTopology(settings());
    const server = fileOf(topology, 'temporal', 'cluster.yaml') as {
      persistence: { datastores: Record<string, { sql: { pluginName: string; databaseName: string } }> };
    };
    const stores = Object.values(server.persistence.datastores).map((store) => store.sql);
    expect(stores.map((sql) => sql.databaseName)).toEqual(TEMPORAL_DATABASES.map((db) => db.name));
    expect(new Set(stores.map((sql) => sql.pluginName))).toEqual(new Set(['postgres12']));
    const dynamic = fileOf(topology, 'temporal', 'dynamicconfig.yaml');
    for (const [key, value] of Object.entries(LATENCY_DYNAMIC_CONFIG))
      expect(dynamic[key]).toEqual([{ value, constraints: {} }]);
  });

  it('gives the Web UI the frontend and the codec endpoint', () => {
    const ui = fileOf(clusterTopology(settings()), 'temporal-ui', 'ui.yaml');
    expect(ui).toMatchObject({
      temporalGrpcAddress: '127.0.0.1:17233',
      port: 18233,
      codec: { endpoint: 'http://localhost:18080/codec/secret' },
    });
  });

  it('sets up both databases and the service database before the server, and the namespace once it is up', () => {
    const { setup } = clusterTopology(settings());
    expect(setup.filter((step) => step.after === 'postgres').map((step) => step.command.slice(1).join(' '))).toEqual([
      '--db temporal create-database',
      '--db temporal setup-schema -v 0.0',
      '--db temporal update-schema --schema-name postgresql/v12/temporal',
      '--db temporal_visibility create-database',
      '--db temporal_visibility setup-schema -v 0.0',
      '--db temporal_visibility update-schema --schema-name postgresql/v12/visibility',
      '--db webloom create-database',
    ]);
    const namespace = setup.find((step) => step.after === 'temporal');
    expect(namespace?.command).toEqual(expect.arrayContaining(['namespace', 'create', '--namespace', 'default']));
  });

  it('refuses a membership port the server could not record', () => {
    const ports = { ...settings().ports, membership: [16933, 40000, 16935, 16939] as [number, number, number, number] };
    expect(() => clusterTopology(settings({ ports }))).toThrow('membership port 40000 is above 32767');
  });
});
