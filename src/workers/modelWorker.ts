import type { NativeConnection } from '@temporalio/worker';
import { ConfigError, modelProblem, type Config } from '../config';
import { createModelActivities } from '../activities/askModel';
import { createResearchActivities } from '../activities/researchModel';
import { createServiceWorker, type RoleWorkers } from './role';

/**
 * The model tier: calls to the OpenAI-compatible endpoint. Its concurrency is the number of
 * model requests in flight, which is what a model server's capacity is measured in.
 */
export async function createModelWorkers(connection: NativeConnection, config: Config): Promise<RoleWorkers> {
  const problem = modelProblem(config.model);
  if (problem) throw new ConfigError('OPENAI_MODEL', problem);
  const worker = await createServiceWorker(connection, config, {
    taskQueue: config.taskQueues.model,
    activities: { ...createModelActivities(config.model), ...createResearchActivities(config.model) },
    maxConcurrentActivityTaskExecutions: config.workers.modelConcurrency,
  });
  return { workers: [worker] };
}
