import type { Client, WorkflowStartOptions } from '@temporalio/client';
import { msToNumber, type Duration, type WorkflowResultType } from '@temporalio/common';
import type { Workflow } from '@temporalio/workflow';
import type { Counter } from 'prom-client';
import type { Context } from 'koa';
import { newUlid } from '../ids';
import type { Billing } from '../billing/billing';
import type { Config, PricedOperation } from '../config';
import { workflowIdOf } from '../events/streams';
import { runFields, type Logger } from '../telemetry/logger';
import { runLabels } from '../temporal/runLabels';
import { resultThroughOutages, startThroughOutages } from './throughOutages';
import { identify, type ApiState } from './state';

/**
 * How the API starts the one workflow of a request, for every operation: answered with its result
 * (request-response) or with its event stream. Either way the run is started the same way, and
 * waiting on it rides out a Temporal outage until the run's own deadline.
 */

export interface RunOptions<W extends Workflow> {
  args: Parameters<W>;
  /** Shown in the Temporal UI beside the run, and its host is a search attribute. */
  url?: string;
  timeout: Duration;
  /** What the run is priced as, when not its operation's name (Research by its mode). */
  priced?: PricedOperation;
}

export interface StartedRun {
  workflowId: string;
  /** The run's own part of its id (a ULID), which streamed runs also name their run id by. */
  id: string;
  /** When the run's execution timeout ends it; nothing waits on it past then. */
  deadline: number;
}

export interface RunStarter {
  /** Starts the request's workflow. Its id `<organization>/<operation>/<ulid>` goes in `x-workflow-id`. */
  start<W extends Workflow>(
    ctx: Context,
    operation: string,
    workflow: W | string,
    options: RunOptions<W>,
  ): Promise<StartedRun>;
  /** Waits for a started run's result. */
  result<W extends Workflow>(run: StartedRun): Promise<WorkflowResultType<W>>;
}

export function createRunStarter(
  config: Config,
  client: Client,
  logger: Logger,
  runsStarted: Counter<'operation'>,
  billing: Billing,
): RunStarter {
  const onOutage = (workflowId: string) => (err: unknown) =>
    logger.warn(
      { ...runFields(workflowId), err: err instanceof Error ? err.message : String(err) },
      'Temporal unreachable; waiting for it',
    );
  // The answer does not wait on it; a settlement that fails here is done by a later sweep.
  const settleSoon = (workflowId: string): void =>
    void billing
      .settle(workflowId)
      .catch((err: unknown) => logger.warn({ ...runFields(workflowId), err }, 'settling a charge failed'));
  return {
    async start(ctx, operation, workflow, options) {
      const state = ctx.state as ApiState;
      const organization = state.organization ?? 'anonymous';
      const id = newUlid();
      // The id names the organization and operation so runs can be found by either in the UI.
      const workflowId = workflowIdOf(organization, operation, id);
      const timeoutMs = msToNumber(options.timeout);
      const deadline = Date.now() + timeoutMs;
      // Before any work starts; the workflow id makes a second charge for the run impossible.
      const priced = options.priced ?? (operation as PricedOperation);
      const credits = await billing.chargeRun(organization, workflowId, priced, timeoutMs);
      identify(state, { workflowId });
      ctx.set('x-workflow-id', workflowId);
      const start = {
        workflowId,
        taskQueue: config.taskQueues.workflows,
        args: options.args,
        workflowExecutionTimeout: options.timeout,
        ...runLabels(organization, operation, options.url, credits),
      } as unknown as WorkflowStartOptions<Workflow>;
      try {
        identify(state, { runId: await startThroughOutages(client, workflow, start, deadline, onOutage(workflowId)) });
      } catch (err) {
        settleSoon(workflowId);
        throw err;
      }
      runsStarted.inc({ operation });
      return { workflowId, id, deadline };
    },

    async result(run) {
      let result: Awaited<ReturnType<typeof resultThroughOutages>>;
      try {
        result = await resultThroughOutages(client, run.workflowId, run.deadline, onOutage(run.workflowId));
      } catch (err) {
        settleSoon(run.workflowId);
        throw err;
      }
      // Its result is the proof it completed: kept, with no need to ask Temporal how it ended.
      billing.completed(run.workflowId);
      return result;
    },
  };
}
