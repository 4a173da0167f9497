/**
 * How the embedded stack spreads worker roles over processes: workflow tasks (and model calls,
 * which mostly wait) in one, page work in another, so a long conversion never holds up a
 * workflow task and the two use separate cores.
 */
export function workerProcessRoles(modelConfigured: boolean): string[] {
  return [modelConfigured ? 'workflow,model' : 'workflow', 'fetch,browser'];
}
