import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Middleware } from 'koa';
import { modelProblem, requireProxyFor } from '../../config';
import { invalidField, ServiceError } from '../../errors';
import { workflowIdOf } from '../../events/streams';
import type { AutomateRequest, FieldValue } from '../../operations/automate';
import { runOfRequestId, submitInputUpdate, type InputAnswer } from '../../operations/automateInput';
import { activityTimeouts, AUTOMATE_DEADLINE_MS } from '../../timeouts';
import { automate } from '../../workflows';
import type { ApiDeps } from '../app';
import { RequestFields } from '../requestFields';
import type { ApiState } from '../state';

/** Spec 8. */
const ITERATIONS = { min: 1, max: 100, fallback: 50 } as const;
const VALIDATIONS = { min: 1, max: 10, fallback: 3 } as const;
/** Bounds the spec leaves open, so one request cannot fill a run's history. */
const MAX_TASK = 20_000;
const MAX_GUARDRAILS = 20_000;
const MAX_DATA_CHARS = 64 * 1024;
const MAX_TRUSTED_HOSTS = 50;
const MAX_FIELDS = 100;
const MAX_VALUE = 10_000;
const HOSTNAME =
  /^(?:\.)?(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;
const IPV6_LITERAL = /^\[?[0-9a-f:.]+\]?$/i;
/** gRPC status codes the server answers an Update on a closed or unknown run with. */
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

/** A limit named in camelCase by the spec, which client libraries may send in snake_case. */
function limit(
  body: Record<string, unknown>,
  names: [string, string],
  bounds: { min: number; max: number; fallback: number },
  code: 'max_iterations_range' | 'max_validation_attempts_range',
): number {
  const value = body[names[0]] ?? body[names[1]];
  if (value === undefined || value === null) return bounds.fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < bounds.min || value > bounds.max)
    throw new ServiceError(code);
  return value;
}

function trustedHostnames(body: Record<string, unknown>): string[] {
  const value = body.trusted_hostnames;
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.length > MAX_TRUSTED_HOSTS)
    throw invalidField(`trusted_hostnames must be an array of at most ${MAX_TRUSTED_HOSTS} hostnames`);
  return value.map((host: unknown) => {
    if (typeof host !== 'string' || !(HOSTNAME.test(host) || IPV6_LITERAL.test(host)))
      throw invalidField('trusted_hostnames must hold hostnames, such as shop.example.com');
    return host.toLowerCase();
  });
}

/** Spec 2.9 with its defaults applied; the URL's form is checked here, its address by the caller. */
export function parseAutomateRequest(body: Record<string, unknown>): AutomateRequest {
  const fields = new RequestFields(body);
  const task = fields.requiredString('task', 'task_required');
  if (task.length > MAX_TASK) throw invalidField(`task must be at most ${MAX_TASK} characters`);
  const maxIterations = limit(body, ['maxIterations', 'max_iterations'], ITERATIONS, 'max_iterations_range');
  const maxValidationAttempts = limit(
    body,
    ['maxValidationAttempts', 'max_validation_attempts'],
    VALIDATIONS,
    'max_validation_attempts_range',
  );
  let url: string | undefined;
  if (body.url !== undefined && body.url !== null && body.url !== '') {
    if (typeof body.url !== 'string' || !isHttpUrl(body.url)) throw new ServiceError('url_format');
    url = body.url;
  }
  const data = body.data;
  if (data !== undefined && data !== null) {
    if (typeof data !== 'object' || Array.isArray(data)) throw invalidField('data must be a JSON object');
    if (JSON.stringify(data).length > MAX_DATA_CHARS)
      throw invalidField(`data must be at most ${MAX_DATA_CHARS} characters of JSON`);
  }
  const guardrails = body.guardrails;
  if (guardrails !== undefined && guardrails !== null && typeof guardrails !== 'string')
    throw invalidField('guardrails must be a string');
  if (typeof guardrails === 'string' && guardrails.length > MAX_GUARDRAILS)
    throw invalidField(`guardrails must be at most ${MAX_GUARDRAILS} characters`);
  const country = fields.optionalGeoTarget()?.country;
  return {
    task,
    ...(url ? { url } : {}),
    ...(data !== undefined && data !== null ? { data: data as Record<string, unknown> } : {}),
    ...(typeof guardrails === 'string' && guardrails.trim() ? { guardrails } : {}),
    maxIterations,
    maxValidationAttempts,
    ...(country ? { country } : {}),
    interactive: fields.optionalBoolean('interactive', false),
    trustedHostnames: trustedHostnames(body),
    unsafeMode: fields.optionalBoolean('unsafe_mode', false),
  };
}

function isHttpUrl(raw: string): boolean {
  try {
    const url = new URL(raw);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Spec 2.10: `fields` unless `cancelled`. */
export function parseInputAnswer(requestId: string, body: Record<string, unknown>): InputAnswer {
  const cancelled = new RequestFields(body).optionalBoolean('cancelled', false);
  const raw = body.fields;
  if (raw === undefined || raw === null) {
    if (!cancelled) throw new ServiceError('input_fields_required');
    return { requestId, fields: [], cancelled };
  }
  if (!Array.isArray(raw) || raw.length > MAX_FIELDS)
    throw invalidField(`fields must be an array of at most ${MAX_FIELDS} {ref, value} objects`);
  const values: FieldValue[] = raw.map((entry: unknown) => {
    const { ref, value } = (entry ?? {}) as Record<string, unknown>;
    if (typeof ref !== 'string' || ref === '' || typeof value !== 'string' || value.length > MAX_VALUE)
      throw invalidField(`each field must be {ref, value} with string values of at most ${MAX_VALUE} characters`);
    return { ref, value };
  });
  return { requestId, fields: values, cancelled };
}

/**
 * POST /automate: one workflow per request, answered with its event stream (spec 4 rule 3).
 * A bad body is 400, an internal URL 422 and a service without a model 503, before any stream.
 */
export function automateRoute(deps: ApiDeps): Middleware<ApiState> {
  return async (ctx) => {
    const request = parseAutomateRequest(ctx.state.body ?? {});
    const problem = modelProblem(deps.config.model);
    if (problem) throw new ServiceError('automate_unavailable', problem);
    if (request.country) requireProxyFor(deps.config.geo, request.country);
    if (request.url) await deps.policy.checkUrl(deps.policy.parseUrl(request.url));
    const { browser, model } = deps.config.taskQueues;
    await deps.streamWorkflow(ctx, 'automate', automate, {
      args: [
        {
          request,
          queues: { browser, model },
          inputTimeoutMs: deps.config.automate.inputTimeoutMs,
          screenshots: deps.config.automate.screenshots,
          timeouts: activityTimeouts(deps.config),
        },
      ],
      ...(request.url ? { url: request.url } : {}),
      timeout: AUTOMATE_DEADLINE_MS,
    });
  };
}

/** A refused answer: the run is gone, never existed for this organization, or is not waiting on that id. */
function inputGone(err: unknown): boolean {
  return (
    err instanceof WorkflowNotFoundError ||
    err instanceof WorkflowUpdateFailedError ||
    (isGrpcServiceError(err) && (err.code === GRPC_NOT_FOUND || err.code === GRPC_FAILED_PRECONDITION))
  );
}

/**
 * POST /automate/{requestID}/input (spec 2.10, 4 rules 5 and 6, 7.7): the answer goes to the
 * run as an Update, found from the id and the caller's organization; any API process can take
 * it. An id that is unknown, expired, answered, or another organization's is 410 alike.
 */
export function automateInputRoute(deps: ApiDeps): Middleware<ApiState> {
  return async (ctx) => {
    const requestId = String(ctx.params.requestID ?? '');
    const answer = parseInputAnswer(requestId, ctx.state.body ?? {});
    if (modelProblem(deps.config.model)) throw new ServiceError('input_unavailable');
    const runUlid = runOfRequestId(requestId);
    if (!runUlid) throw new ServiceError('input_gone');
    const workflowId = workflowIdOf(ctx.state.organization!, 'automate', runUlid);
    try {
      const accepted = await deps.client.workflow.getHandle(workflowId).executeUpdate(submitInputUpdate, {
        args: [answer],
      });
      ctx.status = 202;
      ctx.body = accepted;
    } catch (err) {
      if (inputGone(err)) throw new ServiceError('input_gone', err instanceof Error ? err.message : String(err));
      throw err;
    }
  };
}
