import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { loadConfig } from '../../src/config';
import { modelProblem } from '../../src/operations/availability';
import {
  envExample,
  imageTag,
  readComposeFile,
  readRepoFile,
  REPO_ROOT,
  requiredVariables,
  serviceEnvironment,
  type ComposeService,
} from '../support/composeFile';

/**
 * docker-compose.yml, the production topology in containers, checked as a file: no Docker daemon
 * runs in CI. Where a Docker client with the compose plugin is installed, `docker compose config`
 * checks it too.
 */

const FILE = 'docker-compose.yml';
const compose = readComposeFile(FILE);
const { services } = compose;
const ROLES = ['workflow', 'fetch', 'browser', 'model'];
const APP_SERVICES = ['api', ...ROLES.map((role) => `worker-${role}`)];
/** One-off jobs: others wait for them to complete. */
const JOBS = [
  ...new Set(
    Object.values(services).flatMap((service) =>
      Object.entries(service.depends_on ?? {})
        .filter(([, { condition }]) => condition === 'service_completed_successfully')
        .map(([name]) => name),
    ),
  ),
];

/** What a user puts in .env before `docker compose up`: the example, and a value for each required variable. */
function userEnv(): Record<string, string> {
  const env = envExample();
  const samples: Record<string, string> = {
    API_KEYS: 'compose-test-key-0123456789:acme',
    CODEC_SECRET: 'compose-test-codec-secret',
    PAYLOAD_KEYS: `compose:${Buffer.alloc(32).toString('base64')}`,
    POSTGRES_PASSWORD: 'compose-test-postgres-password',
    SEARXNG_SECRET: 'compose-test-searxng-secret',
  };
  for (const name of requiredVariables(readRepoFile(FILE))) env[name] = samples[name] ?? `sample-${name}`;
  return env;
}

/** The environment a container of the service starts with: .env, then the service's own. */
function containerEnv(service: ComposeService): Record<string, string> {
  const dotEnv = userEnv();
  expect(service.env_file).toBe('.env');
  return { ...dotEnv, ...serviceEnvironment(service, dotEnv) };
}

function commandOf(service: ComposeService): string[] {
  return Array.isArray(service.command) ? service.command : [service.command ?? ''];
}

describe(FILE, () => {
  it('runs one worker service per task queue role, each scaled by --scale', () => {
    for (const role of ROLES) {
      const worker = services[`worker-${role}`];
      expect({ role, roles: worker?.environment?.WORKER_ROLES }).toEqual({ role, roles: role });
      expect(commandOf(worker!)).toEqual(['node', '--max-semi-space-size=64', 'dist/src/workers/main.js']);
      // A fixed name or host port would make a second container of the service collide.
      expect({ role, containerName: worker!.container_name, ports: worker!.ports }).toEqual({
        role,
        containerName: undefined,
        ports: undefined,
      });
      expect(worker!.deploy?.replicas).toBeGreaterThanOrEqual(1);
    }
    expect(commandOf(services.api!)).toEqual(['node', 'dist/src/api/main.js']);
  });

  it('builds one image for the API and every worker role', () => {
    const images = new Set(APP_SERVICES.map((name) => services[name]!.image));
    expect([...images]).toEqual(['webloom:${WEBLOOM_VERSION:-local}']);
    for (const name of APP_SERVICES) expect({ name, build: services[name]!.build }).toEqual({ name, build: '.' });
  });

  it('starts the model workers only with the model profile, since they stop at start without a model', () => {
    expect(modelProblem(loadConfig(containerEnv(services['worker-model']!)).model)).toBeDefined();
    expect(services['worker-model']!.profiles).toEqual(['model']);
    for (const name of Object.keys(services).filter((name) => name !== 'worker-model'))
      expect({ name, profiles: services[name]!.profiles }).toEqual({ name, profiles: undefined });
  });

  it('gives every long-running service a health check and a restart policy, and jobs a bounded retry', () => {
    expect(JOBS.sort()).toEqual(['temporal-namespace', 'temporal-schema']);
    for (const [name, service] of Object.entries(services)) {
      if (JOBS.includes(name)) {
        expect({ name, restart: service.restart }).toEqual({
          name,
          restart: expect.stringMatching(/^on-failure:\d+$/),
        });
        continue;
      }
      expect({ name, restart: service.restart }).toEqual({ name, restart: 'unless-stopped' });
      expect({ name, check: service.healthcheck?.test?.[0] }).toEqual({ name, check: 'CMD' });
      expect(service.healthcheck!.interval).toMatch(/^\d+s$/);
    }
  });

  it('keeps data in named volumes', () => {
    const named = Object.keys(compose.volumes ?? {});
    expect(services.postgres!.volumes).toEqual(['postgres-data:/var/lib/postgresql/data']);
    for (const [name, service] of Object.entries(services)) {
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0]!;
        // Anything not mounted from the checkout (config files, read-only) is a declared named volume.
        if (!source.startsWith('./'))
          expect({ name, source, declared: named.includes(source) }).toMatchObject({ declared: true });
        else expect({ name, volume }).toEqual({ name, volume: expect.stringMatching(/:ro$/) });
      }
    }
  });

  it('pins every image to a version', () => {
    for (const [name, service] of Object.entries(services)) {
      const { tag } = imageTag(service);
      if (APP_SERVICES.includes(name)) continue;
      expect({ name, tag }).toEqual({ name, tag: expect.stringMatching(/^\d+\.\d+(\.\d+)?(-[\w.-]+)?$/) });
    }
  });

  it('keeps secrets out of the file: each is required from .env, which git ignores', () => {
    const required = requiredVariables(readRepoFile(FILE));
    expect(required).toEqual(['API_KEYS', 'CODEC_SECRET', 'PAYLOAD_KEYS', 'POSTGRES_PASSWORD', 'SEARXNG_SECRET']);
    const example = envExample();
    for (const name of required) expect({ name, example: example[name] }).toEqual({ name, example: '' });
    for (const name of APP_SERVICES)
      expect({ name, envFile: services[name]!.env_file }).toEqual({ name, envFile: '.env' });
    for (const [name, service] of Object.entries(services)) {
      for (const [variable, value] of Object.entries(service.environment ?? {})) {
        if (/KEY|SECRET|PASSWORD|PWD/.test(variable))
          expect({ name, variable, value }).toEqual({
            name,
            variable,
            value: expect.stringMatching(/^\$\{\w+:\?[^}]+\}$/),
          });
      }
    }
    expect(readRepoFile('.gitignore').split('\n')).toContain('.env');
  });

  it('gives every API and worker process the settings it starts with, all of them ones it reads', () => {
    for (const name of APP_SERVICES) {
      const env = containerEnv(services[name]!);
      const read = new Set<string>();
      const config = loadConfig(
        new Proxy(env, {
          get: (target, key) => {
            if (typeof key === 'string') read.add(key);
            return target[key as string];
          },
        }),
      );
      // WORKER_ROLES is read by the worker's entry point, not by loadConfig.
      const unread = Object.keys(services[name]!.environment!).filter((v) => !read.has(v) && v !== 'WORKER_ROLES');
      expect({ name, unread }).toEqual({ name, unread: [] });
      expect(config.temporal.address).toBe('temporal:7233');
      expect(config.cache.redisUrl).toBe('redis://redis:6379');
      expect(config.host).toBe('0.0.0.0');
      expect(config.research.search).toMatchObject({ engine: 'searxng', searxngUrl: 'http://searxng:8080' });
      if (name === 'api') {
        expect(config.apiKeys.size).toBeGreaterThan(0);
        expect(config.codec.secret).toBeDefined();
      } else {
        expect(config.metrics.workerPort).toBe(9464);
      }
    }
  });

  it('sets up Temporal on PostgreSQL: schema first, then the server, then the namespace', () => {
    const schema = services['temporal-schema']!;
    expect(schema.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(services.temporal!.depends_on).toEqual({
      'temporal-schema': { condition: 'service_completed_successfully' },
    });
    expect(services['temporal-namespace']!.depends_on).toEqual({ temporal: { condition: 'service_healthy' } });
    for (const name of APP_SERVICES)
      expect(services[name]!.depends_on?.['temporal-namespace']).toEqual({
        condition: 'service_completed_successfully',
      });
    expect(services.temporal!.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(schema.environment).toMatchObject({ SQL_PLUGIN: 'postgres12', SQL_HOST: 'postgres' });
  });

  it('keeps PostgreSQL on a network of its own that none of the service containers joins', () => {
    expect(compose.networks?.persistence).toEqual({ internal: true });
    const onIt = Object.entries(services)
      .filter(([, service]) => service.networks?.includes('persistence'))
      .map(([name]) => name);
    expect(onIt.sort()).toEqual(['postgres', 'temporal', 'temporal-schema']);
    expect(services.postgres!.networks).toEqual(['persistence']);
  });

  it('reads Temporal dynamic config from the file it mounts', () => {
    const temporal = services.temporal!;
    const mount = temporal.volumes!.find((volume) => volume.includes('dynamicconfig'))!;
    const [source, target] = mount.split(':');
    expect(target).toBe(`/etc/temporal/${temporal.environment!.DYNAMIC_CONFIG_FILE_PATH}`);
    const values = parse(readRepoFile(source!)) as Record<string, { value: unknown }[]>;
    expect(Object.keys(values).length).toBeGreaterThan(0);
  });

  it("turns on SearXNG's JSON API, which Research calls", () => {
    const searxng = services.searxng!;
    const mount = searxng.volumes!.find((volume) => volume.endsWith(':/etc/searxng/settings.yml:ro'))!;
    const settings = parse(readRepoFile(mount.split(':')[0]!)) as {
      use_default_settings?: boolean;
      search?: { formats?: string[] };
      server?: { secret_key?: string };
    };
    expect(settings.use_default_settings).toBe(true);
    expect(settings.search?.formats).toContain('json');
    // Its secret comes from SEARXNG_SECRET, never from the checked-in file.
    expect(settings.server?.secret_key).toBeUndefined();
    expect(searxng.environment?.SEARXNG_SECRET).toMatch(/^\$\{SEARXNG_SECRET:\?/);
  });

  it('passes docker compose config where Docker Compose is installed', () => {
    const version = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8' });
    if (version.status !== 0) {
      console.log(
        `docker compose config skipped: no Docker Compose here (${(version.stderr || version.error?.message || '').trim()})`,
      );
      return;
    }
    // In a copy, with a .env made from the example, so a developer's own .env is never read or written.
    const dir = mkdtempSync(path.join(os.tmpdir(), 'webloom-compose-'));
    try {
      for (const entry of [FILE, 'docker-compose.dev.yml', 'deploy'])
        cpSync(path.join(REPO_ROOT, entry), path.join(dir, entry), { recursive: true });
      const env = userEnv();
      writeFileSync(
        path.join(dir, '.env'),
        Object.entries(env)
          .map(([k, v]) => `${k}=${v}`)
          .join('\n'),
      );
      for (const file of [FILE, 'docker-compose.dev.yml']) {
        const result = spawnSync('docker', ['compose', '-f', file, 'config', '--quiet'], {
          cwd: dir,
          encoding: 'utf8',
        });
        expect({ file, status: result.status, stderr: result.stderr }).toEqual({ file, status: 0, stderr: '' });
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
