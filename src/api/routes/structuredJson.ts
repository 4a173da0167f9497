import type { Middleware } from 'koa';
import { modelProblem } from '../../config';
import { ServiceError } from '../../errors';
import { compileSchema, type JsonSchema } from '../../structured/schema';
import { EFFORTS } from '../../types';
import type { StructuredJsonRequest } from '../../operations/structuredJson';
import { extractJson, generateJson } from '../../workflows';
import { checkPageTarget } from '../pageTarget';
import { RequestFields } from '../requestFields';
import type { ApiState } from '../state';
import type { ApiDeps } from '../app';
import { activityTimeouts, OPERATION_DEADLINE_MS } from '../../timeouts';

/** Spec §8. */
export const MAX_INSTRUCTIONS = 20_000;

function parseSchema(body: Record<string, unknown>): JsonSchema {
  const schema = body.json_schema;
  if (schema === undefined || schema === null) throw new ServiceError('json_schema_required');
  if (typeof schema !== 'object' || Array.isArray(schema)) throw new ServiceError('json_schema_invalid');
  try {
    compileSchema(schema as JsonSchema);
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err);
    throw new ServiceError('json_schema_invalid', reason, `json schema must be a valid object: ${reason}`);
  }
  return schema as JsonSchema;
}

/** Spec §2.6 and 2.7 with their defaults applied. */
export function parseStructuredRequest(
  body: Record<string, unknown>,
  withInstructions: boolean,
): StructuredJsonRequest {
  const fields = new RequestFields(body);
  const url = fields.requiredString('url', 'url_required');
  const json_schema = parseSchema(body);
  let instructions: string | undefined;
  if (withInstructions) {
    instructions = fields.requiredString('instructions', 'instructions_required');
    if (instructions.length > MAX_INSTRUCTIONS) throw new ServiceError('instructions_too_long');
  }
  fields.optionalBoolean('nocache', false);
  return {
    url,
    json_schema,
    instructions,
    effort: fields.optionalEnum('effort', EFFORTS, 'standard'),
    geo_target: fields.optionalGeoTarget(),
  };
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
