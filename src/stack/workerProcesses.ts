/**
 * How the embedded stack spreads worker roles over processes: workflow tasks (and model calls,
 * which mostly wait) in one, page work in another, so a long conversion never holds up a
 * workflow task and the two use separate cores.
 */
export function workerProcessRoles(modelConfigured: boolean): string[] {
  return [modelConfigured ? 'workflow,model' : 'workflow', 'fetch,browser'];
}

/**
 * Node flags for worker processes. Reading a page allocates a DOM node by node (linkedom keeps
 * a map per node), so the default young generation fills every few pages and scavenges took a
 * quarter of a page worker's time; a 64 MB semi-space cut that, for ~13% more throughput.
 */
export const WORKER_NODE_FLAGS = ['--max-semi-space-size=64'];
