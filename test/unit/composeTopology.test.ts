import { parse } from 'yaml';
import {
  clusterTopology,
  CLUSTER_SEARCH_ATTRIBUTES,
  NAMESPACE_RETENTION,
  NUM_HISTORY_SHARDS,
  POSTGRES_USER,
  TEMPORAL_DATABASES,
  TEMPORAL_SERVER_VERSION,
  TEMPORAL_SQL_PLUGIN,
  TEMPORAL_UI_SERVER_VERSION,
  temporalDynamicConfig,
  temporalServerConfig,
  temporalUiConfig,
  type ClusterSettings,
  type ServiceSpec,
} from '../../src/stack/clusterTopology';
import { imageTag, readComposeFile, readRepoFile, type ComposeService } from '../support/composeFile';

/**
 * docker-compose.yml against the production topology src/stack/clusterTopology.ts describes (and
 * `npm run start:cluster` runs natively): the same services and replicas, the same Temporal and UI
 * versions, the same setup steps, and every environment variable a process gets there set here.
 */

const DIST = '/opt/webloom/dist/src';
const settings: ClusterSettings = {
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
    node: '/usr/bin/node',
    postgres: 'postgres',
    redis: 'redis-server',
    temporalServer: 'temporal-server',
    temporalSqlTool: 'temporal-sql-tool',
    temporalUiServer: 'temporal-ui-server',
    temporalCli: 'temporal',
  },
  distDir: DIST,
  configDir: '/data/cluster/config',
  postgresDataDir: '/data/cluster/postgres',
  postgresPassword: 'pg-password',
  namespace: 'default',
  codecEndpoint: 'http://localhost:8080/codec/secret',
  payloadKeys: `k1:${Buffer.alloc(32).toString('base64')}`,
  modelConfigured: true,
};
const topology = clusterTopology(settings);
const { services } = readComposeFile();

/** The compose service that runs a topology service: its name without the replica number. */
function composeName(spec: ServiceSpec): string {
  return spec.kind === 'api' || spec.kind === 'worker' ? spec.name.replace(/-\d+$/, '') : spec.name;
}

function script(service: ComposeService): string[] {
  const command = Array.isArray(service.command) ? service.command.join('\n') : (service.command ?? '');
  return command.split('\n').map((line) => line.trim());
}

describe('docker-compose.yml and the cluster topology', () => {
  it('runs every service of the topology, with as many replicas', () => {
    const replicas = new Map<string, number>();
    for (const spec of topology.services) replicas.set(composeName(spec), (replicas.get(composeName(spec)) ?? 0) + 1);
    for (const [name, count] of replicas) {
      expect({ name, present: name in services }).toEqual({ name, present: true });
      expect({ name, replicas: services[name]!.deploy?.replicas ?? 1 }).toEqual({ name, replicas: count });
    }
  });

  it('runs the Temporal server and UI versions the native topology builds', () => {
    expect(imageTag(services.temporal!)).toEqual({ name: 'temporalio/server', tag: TEMPORAL_SERVER_VERSION });
    expect(imageTag(services['temporal-ui']!)).toEqual({ name: 'temporalio/ui', tag: TEMPORAL_UI_SERVER_VERSION });
    // The schema files and the sql tool come with the admin tools of the same server version.
    for (const job of ['temporal-schema', 'temporal-namespace'])
      expect(imageTag(services[job]!)).toEqual({
        name: 'temporalio/admin-tools',
        tag: expect.stringMatching(new RegExp(`^${TEMPORAL_SERVER_VERSION.replaceAll('.', '\\.')}-`)),
      });
  });

  it('gives every API and worker container the variables the topology gives its process, by name', () => {
    for (const spec of topology.services.filter((s) => s.kind === 'api' || s.kind === 'worker')) {
      const environment = services[composeName(spec)]!.environment ?? {};
      const missing = Object.keys(spec.env).filter((name) => !(name in environment));
      expect({ service: spec.name, missing }).toEqual({ service: spec.name, missing: [] });
      if (spec.role) expect(environment.WORKER_ROLES).toBe(spec.role);
    }
  });

  it('runs the same commands in the API and worker containers', () => {
    for (const spec of topology.services.filter((s) => s.kind === 'api' || s.kind === 'worker')) {
      const native = spec.command.map((arg) =>
        arg === settings.binaries.node ? 'node' : arg.replace(`${DIST}/`, 'dist/src/'),
      );
      expect({ service: spec.name, command: services[composeName(spec)]!.command }).toEqual({
        service: spec.name,
        command: native,
      });
    }
  });

  it("sets up the schema with the topology's temporal-sql-tool steps", () => {
    const job = services['temporal-schema']!;
    const lines = script(job);
    const steps = topology.setup.filter((step) => step.after === 'postgres');
    // Three per Temporal database, and the service's own database.
    expect(steps.length).toBe(TEMPORAL_DATABASES.length * 3 + 1);
    for (const step of steps) {
      const line = ['temporal-sql-tool', ...step.command.slice(1)].join(' ');
      expect({ step: step.name, present: lines.includes(line) }).toEqual({ step: step.name, present: true });
      expect(Object.keys(job.environment!).sort()).toEqual(Object.keys(step.env).sort());
    }
    expect(job.environment).toMatchObject({ SQL_PLUGIN: TEMPORAL_SQL_PLUGIN, SQL_USER: POSTGRES_USER });
  });

  it('creates the namespace with its retention and at least the search attributes the topology registers', () => {
    const environment = services['temporal-namespace']!.environment!;
    expect(environment.RETENTION).toBe(NAMESPACE_RETENTION);
    const registered = environment.SEARCH_ATTRIBUTES!.split(/\s+/);
    for (const { name, type } of CLUSTER_SEARCH_ATTRIBUTES) expect(registered).toContain(`${name}:${type}`);
  });

  it("configures the Temporal server as the topology's config file does", () => {
    const environment = services.temporal!.environment!;
    const config = temporalServerConfig(settings, '/dynamicconfig.yaml') as {
      log: { level: string };
      persistence: { numHistoryShards: number; datastores: Record<string, { sql: Record<string, unknown> }> };
    };
    const [store, visibility] = Object.values(config.persistence.datastores).map(({ sql }) => sql);
    expect(environment).toMatchObject({
      DB: TEMPORAL_SQL_PLUGIN,
      POSTGRES_USER: POSTGRES_USER,
      DBNAME: store!.databaseName,
      VISIBILITY_DBNAME: visibility!.databaseName,
      SQL_MAX_CONNS: String(store!.maxConns),
      SQL_VIS_MAX_CONNS: String(visibility!.maxConns),
      NUM_HISTORY_SHARDS: String(NUM_HISTORY_SHARDS),
      LOG_LEVEL: config.log.level,
    });
    expect(config.persistence.numHistoryShards).toBe(NUM_HISTORY_SHARDS);
  });

  it("gives the Temporal server the topology's dynamic config", () => {
    const mount = services.temporal!.volumes!.find((volume) => volume.includes('dynamicconfig'))!;
    expect(parse(readRepoFile(mount.split(':')[0]!))).toEqual(temporalDynamicConfig());
  });

  it("configures the UI as the topology's UI config does", () => {
    const ui = temporalUiConfig(settings) as {
      defaultNamespace: string;
      cors: { cookieInsecure: boolean };
      notifyOnNewVersion: boolean;
      codec: { endpoint: string };
    };
    const environment = services['temporal-ui']!.environment!;
    expect(environment.TEMPORAL_DEFAULT_NAMESPACE).toBe(`\${TEMPORAL_NAMESPACE:-${ui.defaultNamespace}}`);
    expect(environment.TEMPORAL_CSRF_COOKIE_INSECURE).toBe(String(ui.cors.cookieInsecure));
    expect(environment.TEMPORAL_NOTIFY_ON_NEW_VERSION).toBe(String(ui.notifyOnNewVersion));
    expect(environment.TEMPORAL_CODEC_ENDPOINT).toMatch(/\/codec\//);
  });

  it("runs Redis with the topology's flags", () => {
    const redis = topology.services.find((spec) => spec.kind === 'redis')!;
    // The native process binds an address and port of its own; in a container the defaults do.
    const flags = redis.command.slice(1).filter((_arg, i, all) => !['--bind', '--port'].includes(all[i - (i % 2)]!));
    expect((services.redis!.command as string[]).slice(1)).toEqual(flags);
  });
});
