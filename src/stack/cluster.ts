import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { Connection } from '@temporalio/client';
import type { TaskQueues } from '../config';
import { spawnChild, waitUntil, type Child } from './children';
import { findClusterBinaries } from './clusterBinaries';
import {
  clusterTopology,
  clusterWorkers,
  MAX_MEMBERSHIP_PORT,
  type ClusterTopology,
  type ClusterWorkerRole,
  type ServiceSpec,
  type SetupStep,
} from './clusterTopology';
import { keptSecret } from './keptSecret';
import { initPostgres, postgresAccount, postgresReady } from './postgres';
import { canListen, freePort, refuseTakenPorts } from './ports';
import type { Supervisor } from './supervisor';

const run = promisify(execFile);

/**
 * Runs the production topology (src/stack/clusterTopology.ts) as plain processes on one machine,
 * under a supervisor: builds or finds the programs, initializes PostgreSQL and Temporal's schema
 * on first use, then starts each service once the ones it needs are ready.
 */

export interface ClusterOptions {
  /** PostgreSQL's data, the generated config files and the database password, kept across starts. */
  dataDir: string;
  host: string;
  /** Ports a person expects to find again; every other port is picked free at each start. */
  frontendPort?: number;
  uiPort?: number;
  /** One per API replica. */
  apiPorts: (number | undefined)[];
  /** The first worker process's metrics port, each next one's one more; 0: free ones. */
  workerMetricsPort: number;
  namespace: string;
  /** Settings every API and worker process gets (keys, secrets, model, limits); the topology adds the addresses. */
  appEnv: NodeJS.ProcessEnv;
  /** The queues the worker roles poll (they depend on TASK_QUEUE_PREFIX). */
  taskQueues: TaskQueues;
  /** Where the Web UI decodes payloads, given the API ports. */
  codecEndpoint: (apiPorts: number[]) => string;
  /** PAYLOAD_KEYS of every API and worker process, which must all read each other's payloads. */
  payloadKeys: string;
  modelConfigured: boolean;
  /** The built service, `dist/src`. */
  distDir: string;
  temporalCliPath?: string;
  postgresBinDir?: string;
  supervisor: Supervisor;
  log: (line: string) => void;
  /** Where a service's output goes, by its name; without it, this process's stdout, prefixed. */
  output?: (name: string) => (line: string) => void;
}

export interface RunningCluster {
  topology: ClusterTopology;
  /** Each service's process id now, by name; a restarted service has a new one. */
  pids(): Record<string, number | undefined>;
}

/** Time a service has to get ready: the workers' first start includes bundling the workflow code. */
const READY_TIMEOUT_MS = 120_000;

/** Ports no other pick of this start has taken. */
class PortPicker {
  private readonly taken = new Set<number>();

  constructor(private readonly host: string) {}

  async free(): Promise<number> {
    for (;;) {
      const port = await freePort(this.host);
      if (this.claim(port)) return port;
    }
  }

  /**
   * A free port at most `limit`. The kernel hands out ephemeral ports from 32768 up, so these are
   * drawn at random below that and tried.
   */
  async below(limit: number): Promise<number> {
    for (;;) {
      const port = 10_000 + Math.floor(Math.random() * (limit - 10_000));
      if (!this.taken.has(port) && (await canListen(this.host, port)) && this.claim(port)) return port;
    }
  }

  /** `port`, unless another process holds it; undefined is a free one. */
  async fixed(port: number | undefined, setting: string, what: string): Promise<number> {
    if (port === undefined) return this.free();
    await refuseTakenPorts([{ port, host: this.host, setting, what }]);
    this.claim(port);
    return port;
  }

  private claim(port: number): boolean {
    if (this.taken.has(port)) return false;
    this.taken.add(port);
    return true;
  }
}

function canConnect(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Runs a setup step; one that fails only because it was done before counts as done. */
async function runSetupStep(step: SetupStep, log: (line: string) => void): Promise<void> {
  const [program, ...args] = step.command;
  if (!program) throw new Error(`setup step ${step.name} has no command`);
  log(step.name);
  try {
    await run(program, args, { env: { ...process.env, ...step.env }, maxBuffer: 16 * 1024 * 1024 });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: string; stderr?: string };
    const output = `${stdout}\n${stderr}`;
    if (step.alreadyDone?.test(output)) return;
    throw new Error(`setup step "${step.name}" failed: ${output.trim().split('\n').slice(-5).join('\n')}`, {
      cause: err,
    });
  }
}

/** Asks the frontend through one connection, opened on first use and closed by the caller. */
function frontendProbe(address: string): {
  ask: (question: (connection: Connection) => Promise<boolean>) => Promise<boolean>;
  close: () => Promise<void>;
} {
  let connection: Connection | undefined;
  return {
    ask: async (question) => question((connection ??= await Connection.connect({ address, connectTimeout: 1000 }))),
    close: async () => connection?.close(),
  };
}

/** Task queue types of Temporal's API. */
const WORKFLOW_QUEUE = 1;
const ACTIVITY_QUEUE = 2;

function polledQueue(role: ClusterWorkerRole, queues: TaskQueues): { name: string; type: number } {
  switch (role) {
    case 'workflow':
      return { name: queues.workflows, type: WORKFLOW_QUEUE };
    case 'fetch':
      return { name: queues.fetch, type: ACTIVITY_QUEUE };
    case 'browser':
      return { name: queues.browser, type: ACTIVITY_QUEUE };
    case 'model':
      return { name: queues.model, type: ACTIVITY_QUEUE };
  }
}

export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const { host, supervisor, log } = options;
  const binaries = await findClusterBinaries({
    temporalCliPath: options.temporalCliPath,
    postgresBinDir: options.postgresBinDir,
    log,
  });
  const pick = new PortPicker(host);
  const apis: number[] = [];
  for (const [i, port] of options.apiPorts.entries())
    apis.push(await pick.fixed(port, 'PORT', `API replica ${i + 1} of the cluster`));
  const workerMetrics: number[] = [];
  for (const [i, { name }] of clusterWorkers(options.modelConfigured).entries())
    workerMetrics.push(
      await pick.fixed(
        options.workerMetricsPort === 0 ? undefined : options.workerMetricsPort + i,
        'WORKER_METRICS_PORT',
        `metrics of ${name}`,
      ),
    );
  const ports = {
    frontend: await pick.fixed(options.frontendPort, 'TEMPORAL_PORT', 'the Temporal frontend'),
    ui: await pick.fixed(options.uiPort, 'TEMPORAL_UI_PORT', 'the Temporal UI'),
    apis,
    workerMetrics,
    postgres: await pick.free(),
    redis: await pick.free(),
    frontendHttp: await pick.free(),
    history: await pick.free(),
    matching: await pick.free(),
    temporalWorker: await pick.free(),
    membership: [
      await pick.below(MAX_MEMBERSHIP_PORT),
      await pick.below(MAX_MEMBERSHIP_PORT),
      await pick.below(MAX_MEMBERSHIP_PORT),
      await pick.below(MAX_MEMBERSHIP_PORT),
    ] as [number, number, number, number],
  };
  await mkdir(options.dataDir, { recursive: true });
  const postgresPassword = await keptSecret(options.dataDir, 'postgres-password', '');
  const postgresDataDir = path.join(options.dataDir, 'postgres');
  const account = postgresAccount();
  await initPostgres(binaries.postgresBinDir, postgresDataDir, postgresPassword, account);
  const topology = clusterTopology({
    host,
    ports,
    binaries,
    distDir: options.distDir,
    configDir: path.join(options.dataDir, 'config'),
    postgresDataDir,
    postgresPassword,
    namespace: options.namespace,
    codecEndpoint: options.codecEndpoint(apis),
    payloadKeys: options.payloadKeys,
    modelConfigured: options.modelConfigured,
  });
  const frontend = `${host}:${ports.frontend}`;
  // Once the cluster is stopping, a child that is not ready yet never will be: ending the wait
  // hands it to the supervisor, which stops it, instead of waiting out READY_TIMEOUT_MS.
  const untilReady = (what: string, child: Child, ready: () => Promise<boolean>) =>
    waitUntil(what, child, async () => supervisor.stopSignal.aborted || ready(), READY_TIMEOUT_MS);
  const readiness: Record<ServiceSpec['kind'], (child: Child, spec: ServiceSpec) => Promise<void>> = {
    postgres: (child) =>
      untilReady('PostgreSQL', child, () => postgresReady(binaries.postgresBinDir, host, ports.postgres)),
    redis: (child) => untilReady('Redis', child, () => canConnect(host, ports.redis)),
    temporal: async (child) => {
      const probe = frontendProbe(frontend);
      try {
        await untilReady('the Temporal frontend', child, () =>
          probe.ask(async (connection) => Boolean(await connection.workflowService.getSystemInfo({}))),
        );
      } finally {
        await probe.close();
      }
    },
    'temporal-ui': (child) =>
      untilReady('the Temporal UI', child, async () => (await fetch(`http://${host}:${ports.ui}/healthz`)).ok),
    api: (child, spec) =>
      untilReady(spec.name, child, async () => (await fetch(`http://${host}:${spec.ports.http}/healthz`)).ok),
    // A worker is ready once it polls its queue: the frontend lists it by its identity, pid@host.
    worker: async (child, spec) => {
      const queue = polledQueue(spec.role ?? 'workflow', options.taskQueues);
      const probe = frontendProbe(frontend);
      try {
        await untilReady(`${spec.name} polling ${queue.name}`, child, () =>
          probe.ask(async (connection) => {
            const { pollers } = await connection.workflowService.describeTaskQueue({
              namespace: options.namespace,
              taskQueue: { name: queue.name },
              taskQueueType: queue.type,
            });
            return pollers.some((poller) => poller.identity?.startsWith(`${child.process.pid}@`));
          }),
        );
      } finally {
        await probe.close();
      }
    },
  };
  const start = (spec: ServiceSpec) =>
    supervisor.add(spec.name, async () => {
      const [program, ...args] = spec.command;
      if (!program) throw new Error(`${spec.name} has no command`);
      const appProcess = spec.kind === 'api' || spec.kind === 'worker';
      const child = spawnChild(spec.name, program, args, {
        env: { ...process.env, ...(appProcess ? options.appEnv : {}), ...spec.env },
        onLine: options.output?.(spec.name),
        user: spec.kind === 'postgres' ? account : undefined,
        // PostgreSQL's fast shutdown: SIGTERM would wait for every client to leave.
        parentDeathSignal: spec.kind === 'postgres' ? 'SIGINT' : undefined,
      });
      await readiness[spec.kind](child, spec);
      return child;
    });
  const ofKind = (kind: ServiceSpec['kind']) => topology.services.filter((spec) => spec.kind === kind);
  const setupAfter = async (kind: ServiceSpec['kind']) => {
    for (const step of topology.setup.filter((s) => s.after === kind)) await runSetupStep(step, log);
  };

  for (const spec of topology.services)
    for (const file of spec.files) {
      await mkdir(path.dirname(file.path), { recursive: true });
      // The server's config holds the database password.
      await writeFile(file.path, file.content, { mode: 0o600 });
    }
  await Promise.all([...ofKind('postgres'), ...ofKind('redis')].map(start));
  await setupAfter('postgres');
  await Promise.all(ofKind('temporal').map(start));
  await setupAfter('temporal');
  await Promise.all([...ofKind('temporal-ui'), ...ofKind('worker'), ...ofKind('api')].map(start));
  return {
    topology,
    pids: () =>
      Object.fromEntries(topology.services.map((spec) => [spec.name, supervisor.current(spec.name)?.process.pid])),
  };
}
