import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { ServicePayloadCodec } from '../src/temporal/payloadCodec';
import type { Stack } from '../test/support/localStack';
import { testPayloadKeys } from '../test/support/payloadKeys';

/**
 * Where one request's time goes, from the client's own clock (sent, answered) and the run's
 * history (the server's clock, the same machine's): the API and start call, each workflow task's
 * dispatch and run, the activity's dispatch and work, and the result's way back to the client.
 */

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** One request as the client saw it (epoch ms). */
export interface TimedCall {
  workflowId: string;
  sentAt: number;
  answeredAt: number;
}

/** The step of a run an event marks, in the words the breakdown prints; undefined for the rest. */
function stepOf(event: HistoryEvent, workflowTasks: number): string | undefined {
  if (event.workflowExecutionStartedEventAttributes) return 'run started';
  if (event.workflowTaskScheduledEventAttributes) return `workflow task ${workflowTasks + 1} scheduled`;
  if (event.workflowTaskStartedEventAttributes) return `workflow task ${workflowTasks + 1} started`;
  if (event.workflowTaskCompletedEventAttributes) return `workflow task ${workflowTasks + 1} completed`;
  if (event.activityTaskScheduledEventAttributes) return 'activity scheduled';
  if (event.activityTaskStartedEventAttributes) return 'activity started';
  if (event.activityTaskCompletedEventAttributes) return 'activity completed';
  if (event.workflowExecutionCompletedEventAttributes) return 'run completed';
  return undefined;
}

const timeOf = (event: HistoryEvent): number =>
  Number(event.eventTime?.seconds ?? 0) * 1000 + (event.eventTime?.nanos ?? 0) / 1e6;

/** One run: its steps in order, and the fetch's own time and download from its result. */
interface RunTrace {
  steps: { name: string; at: number }[];
  /** The fetch activity, start to completion: the bare work. */
  workMs?: number;
  downloadMs?: number;
}

/** The fetch's result: its download and, from builds that report it, its read. */
async function resultTimes(codec: ServicePayloadCodec, payloads: Payload[] | null | undefined) {
  const [payload] = await codec.decode(payloads ?? []);
  if (!payload?.data) return {};
  return JSON.parse(Buffer.from(payload.data).toString('utf8')) as { obtainMs?: number; readMs?: number };
}

async function traceRun(codec: ServicePayloadCodec, call: TimedCall, events: HistoryEvent[]): Promise<RunTrace> {
  const steps = [{ name: 'client sent', at: call.sentAt }];
  const trace: RunTrace = { steps };
  let workflowTasks = 0;
  for (const event of events) {
    const name = stepOf(event, workflowTasks);
    if (name) steps.push({ name, at: timeOf(event) });
    if (event.workflowTaskCompletedEventAttributes) workflowTasks++;
    const payloads = event.activityTaskCompletedEventAttributes?.result?.payloads;
    if (payloads) {
      const { obtainMs, readMs } = await resultTimes(codec, payloads);
      trace.downloadMs = obtainMs;
      const started = steps.find((step) => step.name === 'activity started');
      // Builds from before readMs: the activity's own span, which also holds its result's encoding.
      trace.workMs =
        obtainMs !== undefined && readMs !== undefined ? obtainMs + readMs : started && timeOf(event) - started.at;
    }
  }
  steps.push({ name: 'client answered', at: call.answeredAt });
  return trace;
}

export const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

export interface Breakdown {
  /** Each step to the next, in order, with its median over the runs (ms). */
  segments: { name: string; ms: number }[];
  /** Medians of the bare work (the fetch, download and read) and of its download. */
  workMs: number;
  downloadMs: number;
  /** Median over runs of the request's time less its bare work: what Temporal and the API add. */
  overheadMs: number;
}

/** The breakdown of `calls`, medians per segment; segments are named by the steps they join. */
export async function breakdown(stack: Stack, calls: TimedCall[]): Promise<Breakdown> {
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: stack.namespace });
  const codec = new ServicePayloadCodec(testPayloadKeys);
  const bySegment = new Map<string, number[]>();
  const work: number[] = [];
  const download: number[] = [];
  const overhead: number[] = [];
  try {
    for (const call of calls) {
      const history = await client.workflow.getHandle(call.workflowId).fetchHistory();
      const trace = await traceRun(codec, call, history.events ?? []);
      trace.steps.slice(1).forEach((step, i) => {
        const name = `${trace.steps[i]!.name} -> ${step.name}`;
        bySegment.set(name, [...(bySegment.get(name) ?? []), step.at - trace.steps[i]!.at]);
      });
      if (trace.workMs !== undefined) {
        work.push(trace.workMs);
        overhead.push(call.answeredAt - call.sentAt - trace.workMs);
      }
      if (trace.downloadMs !== undefined) download.push(trace.downloadMs);
    }
  } finally {
    await connection.close();
  }
  return {
    segments: [...bySegment].map(([name, values]) => ({ name, ms: median(values) })),
    workMs: median(work),
    downloadMs: median(download),
    overheadMs: median(overhead),
  };
}
