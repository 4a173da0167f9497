import type { NativeConnection } from '@temporalio/worker';
import { ConfigError, type Config } from '../config';
import { modelProblem } from '../operations/availability';
import { createModelActivities } from '../activities/askModel';
import { ModelClient } from '../model/modelClient';
import { createResearchActivities } from '../activities/researchModel';
import { createAutomateActivities } from '../activities/automateModel';
import type { WorkerMetrics } from '../telemetry/metrics/workerMetrics';
import { heartbeating } from '../temporal/heartbeating';
import { createServiceWorker, type RoleWorkers } from './role';

/**
 * Every model call heartbeats while it waits on the model, so a call whose worker died is retried
 * elsewhere after the heartbeat timeout, not after the model timeout (two minutes and more).
 */
function withHeartbeats<A extends Record<string, (input: never) => Promise<unknown>>>(activities: A): A {
  return Object.fromEntries(
    Object.entries(activities).map(([name, activity]) => [name, (input: never) => heartbeating(() => activity(input))]),
  ) as A;
}

/**
 * The model tier: calls to the OpenAI-compatible endpoint. Its concurrency is the number of
 * model requests in flight, which is what a model server's capacity is measured in.
 */
export async function createModelWorkers(
  connection: NativeConnection,
  config: Config,
  metrics: WorkerMetrics,
): Promise<RoleWorkers> {
  const problem = modelProblem(config.model);
  if (problem) throw new ConfigError('OPENAI_MODEL', problem);
  // One client for every task, so what it learns of the server (no json_schema output) holds for all.
  const client = new ModelClient(config.model);
  const worker = await createServiceWorker(connection, config, metrics, {
    taskQueue: config.taskQueues.model,
    activities: withHeartbeats({
      ...createModelActivities(client),
      ...createResearchActivities(client),
      ...createAutomateActivities(client),
    }),
    maxConcurrentActivityTaskExecutions: config.workers.modelConcurrency,
  });
  return { workers: [worker] };
}
