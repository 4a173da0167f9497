import { spawnChild, type Child, type SpawnOptions } from './children';

/**
 * How the embedded stack spreads worker roles over processes: workflow tasks (and model calls,
 * which mostly wait) in one, page work in another, so a long conversion never holds up a
 * workflow task and the two use separate cores.
 */
function workerProcessRoles(modelConfigured: boolean): string[] {
  return [modelConfigured ? 'workflow,model' : 'workflow', 'fetch,browser'];
}

/**
 * Node flags for worker processes. Reading a page allocates a DOM node by node (linkedom keeps
 * a map per node), so the default young generation fills every few pages and scavenges took a
 * quarter of a page worker's time; a 64 MB semi-space cut that, for ~13% more throughput.
 */
export const WORKER_NODE_FLAGS = ['--max-semi-space-size=64'];

export interface WorkerProcess {
  name: string;
  /** Starts (or, after a crash, starts again) this process. */
  spawn(): Child;
}

/**
 * The metrics port of the `index`th worker process of one machine: each its own, counting up
 * from the configured one; 0 stays 0, so each picks a free one and logs it.
 */
export function workerMetricsPort(configured: number, index: number): number {
  return configured === 0 ? 0 : configured + index;
}

/** The worker processes of the embedded stack, each running `mainJs` with its roles. */
export function workerProcesses(
  mainJs: string,
  modelConfigured: boolean,
  options: (roles: string, index: number) => SpawnOptions,
): WorkerProcess[] {
  return workerProcessRoles(modelConfigured).map((roles, index) => {
    const name = `worker ${roles}`;
    const spawnOptions = options(roles, index);
    return {
      name,
      spawn: () => spawnChild(name, process.execPath, [...WORKER_NODE_FLAGS, mainJs, roles], spawnOptions),
    };
  });
}
