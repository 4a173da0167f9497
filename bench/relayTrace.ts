import { Client, Connection } from '@temporalio/client';
import type { ReadResult } from '../src/events/messages';
import { ServicePayloadCodec } from '../src/temporal/payloadCodec';
import type { Stack } from '../test/support/localStack';
import { testPayloadKeys } from '../test/support/payloadKeys';
import { fmt, percentile } from './common';

/**
 * Where the relay's time goes (the workflow recording an event -> the client having it), from
 * the runs' histories, the API's `webloom_event_relay_seconds` and the client's own clock:
 * - answered: the workflow task that recorded the event completed the read that carries it
 *   (the read's Update completed in history);
 * - read by the API, then written into the client's stream (the API's histogram);
 * - parsed by the client.
 * Every time counts from the event's `timestamp`, the start of the workflow task recording it.
 */

/** An event as the client had it. */
export interface ClientEvent {
  workflowId: string;
  id: number;
  /** The workflow's record time (`timestamp`). */
  recordedAt: number;
  /** When the client had parsed it. */
  at: number;
}

/** How one event reached the API, from its run's history. */
interface Answer {
  /** The read's Update completed. */
  answeredAt: number;
  /** The workflow task that took the read: scheduled (for a read alone: the read reached Temporal) and started. */
  readTask: { scheduledAt: number; startedAt: number };
  /**
   * The workflow task that recorded the event: when what gave it work happened (an activity
   * completed...), and when it was scheduled.
   */
  recordingTask?: { triggeredAt: number; scheduledAt: number };
}

/** History events that give a run work, so a workflow task follows them. */
const TRIGGERS = [
  'workflowExecutionStartedEventAttributes',
  'activityTaskCompletedEventAttributes',
  'activityTaskFailedEventAttributes',
  'activityTaskTimedOutEventAttributes',
  'activityTaskCanceledEventAttributes',
  'timerFiredEventAttributes',
  'workflowExecutionSignaledEventAttributes',
  'workflowExecutionCancelRequestedEventAttributes',
] as const;

const millis = (time: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(time?.seconds ?? 0) * 1000 + Math.floor((time?.nanos ?? 0) / 1e6);

/** Each event's answer, by workflow id and event id, from the runs' histories. */
async function answers(
  stack: Stack,
  workflowIds: string[],
  recordedAtOf: Map<string, number>,
): Promise<{ found: Map<string, Answer>; tasks: number; reads: number; speculative: number }> {
  const connection = await Connection.connect({ address: stack.temporalAddress });
  const client = new Client({ connection, namespace: stack.namespace });
  const codec = new ServicePayloadCodec(testPayloadKeys);
  const found = new Map<string, Answer>();
  let tasks = 0;
  let reads = 0;
  /** Workflow tasks nothing but a read asked for: it came while the run had no other work. */
  let speculative = 0;
  try {
    for (const workflowId of workflowIds) {
      const history = await client.workflow.getHandle(workflowId).fetchHistory();
      let scheduledAt = 0;
      let startedAt = 0;
      /** Events that gave the run work (an activity's result, a timer, a signal) since the last task was scheduled. */
      let triggers = 0;
      let triggered = false;
      let triggeredAt = 0;
      /** Each workflow task by its start time, as the events it recorded carry it. */
      const tasksByStart = new Map<number, { triggeredAt: number; scheduledAt: number }>();
      const accepted = new Map<number, { scheduledAt: number; startedAt: number }>();
      for (const event of history.events ?? []) {
        const at = millis(event.eventTime);
        if (TRIGGERS.some((key) => event[key])) {
          triggers++;
          triggeredAt = at;
        }
        if (event.workflowTaskScheduledEventAttributes) {
          scheduledAt = at;
          triggered = triggers > 0;
          if (!triggered) triggeredAt = at;
          triggers = 0;
        }
        if (event.workflowTaskStartedEventAttributes) {
          startedAt = at;
          tasksByStart.set(at, { triggeredAt, scheduledAt });
          tasks++;
          if (!triggered) speculative++;
        }
        if (event.workflowExecutionUpdateAcceptedEventAttributes) {
          accepted.set(Number(event.eventId), { scheduledAt, startedAt });
          reads++;
        }
        const completed = event.workflowExecutionUpdateCompletedEventAttributes;
        const payloads = completed?.outcome?.success?.payloads;
        if (!completed || !payloads) continue;
        const read = accepted.get(Number(completed.acceptedEventId));
        const [payload] = await codec.decode(payloads);
        if (!read || !payload?.data) continue;
        const result = JSON.parse(Buffer.from(payload.data).toString('utf8')) as Partial<ReadResult>;
        for (const { id } of result.events ?? []) {
          const key = `${workflowId}#${id}`;
          if (found.has(key)) continue;
          found.set(key, {
            answeredAt: at,
            readTask: { scheduledAt: read.scheduledAt, startedAt: read.startedAt },
          });
        }
      }
      for (const [key, answer] of found) {
        if (!key.startsWith(`${workflowId}#`) || answer.recordingTask) continue;
        const recordedAt = recordedAtOf.get(key);
        if (recordedAt !== undefined) answer.recordingTask = tasksByStart.get(recordedAt);
      }
    }
  } finally {
    await connection.close();
  }
  return { found, tasks, reads, speculative };
}

/** The API's relay histogram by stage: cumulative counts by upper bound (seconds). */
export async function relayHistogram(stack: Stack): Promise<Histogram> {
  const text = await (await fetch(`${new URL(stack.apiUrl).origin}/metrics`)).text();
  const stages: Histogram = {};
  for (const line of text.split('\n')) {
    if (!line.startsWith('webloom_event_relay_seconds_bucket{')) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    const stage = /stage="([^"]+)"/.exec(line)?.[1];
    if (!le || !stage) continue;
    (stages[stage] ??= []).push([le === '+Inf' ? Infinity : Number(le), Number(line.slice(line.lastIndexOf(' ') + 1))]);
  }
  return stages;
}

type Histogram = Record<string, [number, number][]>;

/** What a histogram counted between two scrapes. */
function histogramDelta(before: Histogram, after: Histogram): Histogram {
  return Object.fromEntries(
    Object.entries(after).map(([stage, counts]) => [
      stage,
      counts.map(([le, count], i) => [le, count - (before[stage]?.[i]?.[1] ?? 0)] as [number, number]),
    ]),
  );
}

/** The median in ms of a histogram's counts, interpolated within its bucket. */
function histogramMedian(counts: [number, number][] = []): number {
  const total = counts.at(-1)?.[1] ?? 0;
  if (total === 0) return NaN;
  let lower = 0;
  let below = 0;
  for (const [le, count] of counts) {
    if (count >= total / 2) {
      if (le === Infinity) return lower * 1000;
      return (lower + ((total / 2 - below) / Math.max(1, count - below)) * (le - lower)) * 1000;
    }
    lower = le;
    below = count;
  }
  return NaN;
}

const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

type TracedEvent = ClientEvent & Answer;

/** The relay of some runs, traced: kept apart from the stack so several stacks' runs add up. */
export interface RelayTrace {
  traced: TracedEvent[];
  events: number;
  runs: number;
  tasks: number;
  reads: number;
  speculative: number;
  /** The API's histogram counts for these runs, by stage. */
  api: Histogram;
}

/** Traces `events` while their stack still runs; `before` and `after` are relayHistogram's scrapes around them. */
export async function traceRelay(
  stack: Stack,
  events: ClientEvent[],
  before: Histogram,
  after: Histogram,
): Promise<RelayTrace> {
  const workflowIds = [...new Set(events.map((event) => event.workflowId))];
  const recordedAtOf = new Map(events.map((event) => [`${event.workflowId}#${event.id}`, event.recordedAt]));
  const { found, tasks, reads, speculative } = await answers(stack, workflowIds, recordedAtOf);
  const traced = events.flatMap((event) => {
    const answer = found.get(`${event.workflowId}#${event.id}`);
    return answer ? [{ ...event, ...answer }] : [];
  });
  return {
    traced,
    events: events.length,
    runs: workflowIds.length,
    tasks,
    reads,
    speculative,
    api: histogramDelta(before, after),
  };
}

/** Several traces as one. */
export function mergeTraces(traces: RelayTrace[]): RelayTrace {
  const api: Histogram = {};
  for (const trace of traces)
    for (const [stage, counts] of Object.entries(trace.api))
      api[stage] = counts.map(([le, count], i) => [le, count + (api[stage]?.[i]?.[1] ?? 0)]);
  const sum = (field: 'events' | 'runs' | 'tasks' | 'reads' | 'speculative') =>
    traces.reduce((total, trace) => total + trace[field], 0);
  return {
    traced: traces.flatMap((trace) => trace.traced),
    events: sum('events'),
    runs: sum('runs'),
    tasks: sum('tasks'),
    reads: sum('reads'),
    speculative: sum('speculative'),
    api,
  };
}

/** The lines saying where the relay time of a trace's events went. */
export function relayTraceLines(trace: RelayTrace): string[] {
  const { traced } = trace;
  const perRun = (count: number) => fmt(count / trace.runs);
  // A read whose task started by the time the event was recorded was there to take it at once.
  const waiting = traced.filter((event) => event.readTask.startedAt <= event.recordedAt);
  const late = traced.filter((event) => event.readTask.startedAt > event.recordedAt);
  const after = (list: TracedEvent[], at: (event: TracedEvent) => number) =>
    fmt(median(list.map((event) => at(event) - event.recordedAt)));
  const recorded = traced.filter((event) => event.recordingTask);
  return [
    `before the event (medians over ${recorded.length} events, ms): the work that led to it done ` +
      `${after(recorded, (event) => event.recordingTask!.triggeredAt)}, its workflow task scheduled ` +
      `${after(recorded, (event) => event.recordingTask!.scheduledAt)}, started 0; from that work done to the ` +
      `client having the event ${fmt(median(recorded.map((event) => event.at - event.recordingTask!.triggeredAt)))}`,
    `where the relay time goes (medians, ms after the workflow task recording the event started; ` +
      `${traced.length} of ${trace.events} events traced):`,
    `  read answered in history      ${after(traced, (event) => event.answeredAt)}`,
    `  read by the API               ${fmt(histogramMedian(trace.api.read))}`,
    `  written to the client stream  ${fmt(histogramMedian(trace.api.sent))}`,
    `  parsed by the client          ${after(traced, (event) => event.at)}`,
    `  a read was waiting for ${waiting.length} events: answered ${after(waiting, (event) => event.answeredAt)}, ` +
      `client ${after(waiting, (event) => event.at)}`,
    `  ${late.length} events waited for the next read: it reached Temporal ` +
      `${after(late, (event) => event.readTask.scheduledAt)}, its task started ` +
      `${after(late, (event) => event.readTask.startedAt)}, answered ${after(late, (event) => event.answeredAt)}, ` +
      `client ${after(late, (event) => event.at)}`,
    `  per run: ${perRun(trace.tasks)} workflow tasks, ${perRun(trace.reads)} reads, ` +
      `${perRun(trace.speculative)} tasks that only took a read`,
  ];
}
