import { isGrpcServiceError, WorkflowNotFoundError, WorkflowUpdateFailedError } from '@temporalio/client';
import type { Middleware } from 'koa';
import { modelProblem } from '../../operations/availability';
import { requireProxyFor } from '../../operations/geo';
import { ServiceError } from '../../errors';
import { workflowIdOf } from '../../events/streams';
import type { AutomateRequest } from '../../operations/automate';
import { runOfRequestId, submitInputUpdate, type InputAnswer } from '../../operations/automateInput';
import { activityTimeouts, AUTOMATE_DEADLINE_MS } from '../../config/timeouts';
import { automate } from '../../workflows';
import type { ApiDeps } from '../deps';
import { automateBody, automateInputBody } from '../requestBody/requestBodies';
import type { ApiState } from '../state';

/** Spec 2.9 with its defaults applied; the URL's form is checked here, its address by the route (422). */
export function parseAutomateRequest(body: Record<string, unknown>): AutomateRequest {
  const request = automateBody.parse(body);
  const country = request.geo_target?.country;
  return {
    task: request.task,
    ...(request.url ? { url: request.url } : {}),
    ...(request.data ? { data: request.data } : {}),
    ...(request.guardrails ? { guardrails: request.guardrails } : {}),
    maxIterations: request.maxIterations,
    maxValidationAttempts: request.maxValidationAttempts,
    ...(country ? { country } : {}),
    interactive: request.interactive,
    trustedHostnames: request.trusted_hostnames,
    unsafeMode: request.unsafe_mode,
  };
}

/** Spec 2.10: `fields` unless `cancelled`. */
export function parseInputAnswer(requestId: string, body: Record<string, unknown>): InputAnswer {
  const { cancelled, fields } = automateInputBody.parse(body);
  return { requestId, fields: fields ?? [], cancelled };
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

/** gRPC status codes the server answers an Update on a closed or unknown run with. */
const GRPC_NOT_FOUND = 5;
const GRPC_FAILED_PRECONDITION = 9;

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
