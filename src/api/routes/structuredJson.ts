import type { Middleware } from 'koa';
import { modelProblem } from '../../operations/availability';
import { ServiceError } from '../../errors';
import type { StructuredJsonRequest } from '../../operations/structuredJson';
import { extractJson, generateJson } from '../../workflows';
import { checkPageTarget } from '../requestBody/pageTarget';
import { extractJsonBody, generateJsonBody } from '../requestBody/requestBodies';
import type { ApiState } from '../state';
import type { ApiDeps } from '../deps';
import { activityTimeouts, OPERATION_DEADLINE_MS } from '../../config/timeouts';

/** Spec §2.6 and 2.7 with their defaults applied. */
export function parseStructuredRequest(
  body: Record<string, unknown>,
  withInstructions: boolean,
): StructuredJsonRequest {
  if (!withInstructions) {
    const { url, json_schema, effort, geo_target } = extractJsonBody.parse(body);
    return { url, json_schema, effort, geo_target };
  }
  const { url, json_schema, instructions, effort, geo_target } = generateJsonBody.parse(body);
  return { url, json_schema, instructions, effort, geo_target };
}

/** POST /extract/json and /generate/json: one workflow per request, answered with its object. */
export function structuredJsonRoute(deps: ApiDeps, operation: 'extract-json' | 'generate-json'): Middleware<ApiState> {
  const workflow = operation === 'extract-json' ? extractJson : generateJson;
  return async (ctx) => {
    const request = parseStructuredRequest(ctx.state.body ?? {}, operation === 'generate-json');
    const problem = modelProblem(deps.config.model);
    if (problem) throw new ServiceError('model_unavailable', undefined, problem);
    await checkPageTarget(deps, request);
    const { fetch, browser, model } = deps.config.taskQueues;
    ctx.body = await deps.runWorkflow(ctx, operation, workflow, {
      args: [
        {
          request,
          queues: { fetch, browser, model },
          repairAttempts: deps.config.model.repairAttempts,
          timeouts: activityTimeouts(deps.config),
        },
      ],
      url: request.url,
      timeout: OPERATION_DEADLINE_MS[operation],
    });
  };
}
