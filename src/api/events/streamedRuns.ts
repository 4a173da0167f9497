import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/common';
import type { Workflow } from '@temporalio/workflow';
import type { Histogram } from 'prom-client';
import type { Context } from 'koa';
import type { Config } from '../../config';
import { invalidField, ServiceError } from '../../errors';
import { listEventsQuery } from '../../events/messages';
import { parseRunId, runIdOf, streamedOperation, workflowIdOf, type StreamedOperationName } from '../../events/streams';
import type { Logger } from '../../telemetry/logger';
import type { RunOptions, RunStarter } from '../runStarter';
import { INVALID_LAST_EVENT_ID } from '../../events/sse';
import { identify, type ApiState } from '../state';
import { EventRelay, type Subscription } from './eventRelay';
import { streamEvents } from './eventStream';

type ApiContext = Context & { state: ApiState };

/** A started run whose events its caller reads itself. */
export interface FollowedRun {
  workflowId: string;
  /** The id to read its stream again at `GET /runs/{runId}/events`. */
  runId: string;
  events: Subscription;
}

export interface StreamedRuns {
  /**
   * Starts one workflow for the request and answers with its event stream (spec §4 rule 3). A
   * failure to start is thrown, so it gets its status (spec §7); once streaming, failures are
   * the stream's `error` event. The run id for resuming is in the `x-run-id` header.
   */
  streamWorkflow<W extends Workflow>(
    ctx: ApiContext,
    operation: StreamedOperationName,
    workflow: W | string,
    options: RunOptions<W>,
  ): Promise<void>;
  /**
   * Starts the workflow as `streamWorkflow` does, and hands its events to the caller instead of
   * answering with them: the MCP endpoint relays them as its own messages. The caller closes them.
   */
  followWorkflow<W extends Workflow>(
    ctx: ApiContext,
    operation: StreamedOperationName,
    workflow: W | string,
    options: RunOptions<W>,
  ): Promise<FollowedRun>;
  /**
   * Answers with the events after `after` of a run the caller's organization started, then the live
   * ones; 404 for any other.
   */
  resumeRun(ctx: ApiContext, runId: string, after: number): Promise<void>;
  /** Event streams this process is serving now. */
  openStreams(): number;
  /** Ends every event stream, and any opened from now on, telling clients to resume elsewhere; how many ended. */
  endStreams(): number;
}

export function createStreamedRuns(
  config: Config,
  client: Client,
  runs: RunStarter,
  logger: Logger,
  relayed: Histogram<'stage'>,
): StreamedRuns {
  const relay = new EventRelay(client, config.stream.disconnectGraceMs, logger, relayed);
  return {
    openStreams: () => relay.streams,
    endStreams: () => relay.drain(),
    async streamWorkflow(ctx, operation, workflow, options) {
      const { workflowId, id } = await runs.start(ctx, operation, workflow, options);
      ctx.set('x-run-id', runIdOf(operation, id));
      streamEvents(
        ctx,
        relay,
        { workflowId, operation: streamedOperation(operation), after: 0 },
        config.stream.heartbeatMs,
      );
    },

    async followWorkflow(ctx, operation, workflow, options) {
      const { workflowId, id } = await runs.start(ctx, operation, workflow, options);
      const runId = runIdOf(operation, id);
      ctx.set('x-run-id', runId);
      return { workflowId, runId, events: relay.subscribe(workflowId, streamedOperation(operation), 0) };
    },

    async resumeRun(ctx, runId, after) {
      const run = parseRunId(runId);
      if (!run) throw new ServiceError('not_found', `not a run id: ${runId}`);
      const organization = ctx.state.organization ?? 'anonymous';
      const workflowId = workflowIdOf(organization, run.operation, run.ulid);
      let memo: Record<string, unknown> | undefined;
      let temporalRunId: string;
      try {
        ({ memo, runId: temporalRunId } = await client.workflow.getHandle(workflowId).describe());
      } catch (err) {
        if (err instanceof WorkflowNotFoundError) throw new ServiceError('not_found', `no run ${workflowId}`);
        throw err;
      }
      // The id already names the caller's organization; the memo check keeps it so should ids ever change.
      if (memo?.organization !== organization)
        throw new ServiceError('not_found', `run ${workflowId} belongs to another organization`);
      // A reader started past the run's last event would wait for events that never come, and so
      // would every client of this process that joins it.
      if (after > 0) {
        const { headId } = await client.workflow
          .getHandle(workflowId)
          .query(listEventsQuery, { after: Number.MAX_SAFE_INTEGER });
        if (after > headId) throw invalidField(INVALID_LAST_EVENT_ID);
      }
      identify(ctx.state, { workflowId, runId: temporalRunId });
      ctx.set('x-workflow-id', workflowId);
      ctx.set('x-run-id', runId);
      streamEvents(
        ctx,
        relay,
        { workflowId, operation: streamedOperation(run.operation), after },
        config.stream.heartbeatMs,
      );
    },
  };
}
