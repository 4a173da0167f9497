import type { DataConverter } from '@temporalio/common';
import type { History } from '@temporalio/common/lib/proto-utils';
import {
  bundleWorkflowCode,
  DefaultLogger,
  Worker,
  type ReplayWorkerOptions,
  type WorkflowBundleWithSourceMap,
} from '@temporalio/worker';
import { DeterminismViolationError } from '@temporalio/workflow';
import { FAILURE_CONVERTER_PATH, PAYLOAD_CONVERTER_PATH } from '../temporal/payloadCodec';
import { parseDivergence, type Divergence } from './divergence';

/**
 * Replays a run's history against workflow code, as a worker would on picking the run up after
 * a deploy, and says where they part: the event, and the workflow task whose commands did.
 */

type HistoryEvent = NonNullable<History['events']>[number];

export interface ReplayOutcome {
  events: number;
  divergence?: Divergence;
  /** The replay failed otherwise: a workflow task that throws on replay, a workflow type the code lacks. */
  error?: string;
}

/** The workflows as the workflow worker bundles them (src/workflows unless told otherwise). */
export function bundleServiceWorkflows(
  workflowsPath = require.resolve('../workflows'),
): Promise<WorkflowBundleWithSourceMap> {
  return bundleWorkflowCode({
    workflowsPath,
    payloadConverterPath: PAYLOAD_CONVERTER_PATH,
    failureConverterPath: FAILURE_CONVERTER_PATH,
    logger: new DefaultLogger('WARN'),
  });
}

export async function replayHistory(
  history: History,
  workflowId: string,
  workflowBundle: WorkflowBundleWithSourceMap,
  dataConverter: DataConverter,
): Promise<ReplayOutcome> {
  const events = history.events ?? [];
  const options: ReplayWorkerOptions = { workflowBundle, dataConverter, replayName: 'webloom-replay' };
  try {
    await Worker.runReplayHistory(options, history, workflowId);
    return { events: events.length };
  } catch (err) {
    if (!(err instanceof DeterminismViolationError))
      return { events: events.length, error: err instanceof Error ? err.message : String(err) };
    const divergence = parseDivergence(err.message);
    if (divergence.eventId !== undefined) {
      const taskCompletedAt = lastTaskCompletedBefore(events, divergence.eventId);
      const event = events.find((candidate) => idOf(candidate) === divergence.eventId);
      const subject = event && subjectOf(event);
      return {
        events: events.length,
        divergence: {
          ...divergence,
          taskCompletedAt,
          recorded: subject ? `${divergence.recorded} (${subject})` : divergence.recorded,
        },
      };
    }
    const taskCompletedAt = await divergentTask(options, events, workflowId);
    const event = taskCompletedAt === undefined ? undefined : eventOfTask(events, taskCompletedAt, divergence.name);
    return {
      events: events.length,
      divergence: {
        ...divergence,
        taskCompletedAt,
        eventId: event && idOf(event),
        recorded: event ? `${typeOf(event)}, ${divergence.recorded}` : divergence.recorded,
      },
    };
  }
}

const idOf = (event: HistoryEvent): number => Number(event.eventId);

function lastTaskCompletedBefore(events: HistoryEvent[], eventId: number): number | undefined {
  return events
    .filter((event) => event.workflowTaskCompletedEventAttributes && idOf(event) < eventId)
    .map(idOf)
    .at(-1);
}

/**
 * The workflow task whose commands part from the history, by its WorkflowTaskCompleted event:
 * the first whose history, cut where the next task starts, no longer replays. A replay checks
 * each task's commands against the events after it, except the last task of a history that ends
 * with that task started. A history none of whose cuts fails parts in its last task.
 */
async function divergentTask(
  options: ReplayWorkerOptions,
  events: HistoryEvent[],
  workflowId: string,
): Promise<number | undefined> {
  const tasks = events.filter((event) => event.workflowTaskCompletedEventAttributes).map(idOf);
  const cut: number[] = [];
  async function* cuts() {
    for (const task of tasks) {
      const nextStart = events.findIndex((event) => idOf(event) > task && event.workflowTaskStartedEventAttributes);
      if (nextStart < 0) return;
      cut.push(task);
      yield { workflowId, history: { events: events.slice(0, nextStart + 1) } };
    }
  }
  let replayed = 0;
  for await (const result of Worker.runReplayHistories(options, cuts())) {
    if (result.error) return cut[replayed];
    replayed++;
  }
  return tasks.at(-1);
}

/** The event of a task's commands that a mismatch names (`fetchPage`), else the task's first. */
function eventOfTask(events: HistoryEvent[], taskCompletedAt: number, name?: string): HistoryEvent | undefined {
  const after = events.filter((event) => idOf(event) > taskCompletedAt);
  const end = after.findIndex((event) => event.workflowTaskScheduledEventAttributes);
  const commands = end < 0 ? after : after.slice(0, end);
  return (name === undefined ? undefined : commands.find((event) => mentions(event, name))) ?? commands[0];
}

function mentions(value: unknown, name: string): boolean {
  if (value === name) return true;
  if (!value || typeof value !== 'object' || ArrayBuffer.isView(value)) return false;
  return Object.values(value).some((child) => mentions(child, name));
}

/** An event's type as the Web UI shows it, from the attributes it carries: `ActivityTaskScheduled`. */
function typeOf(event: HistoryEvent): string {
  const attributes = Object.keys(event).find(
    (key) => key.endsWith('EventAttributes') && event[key as keyof HistoryEvent],
  );
  return attributes ? attributes[0]!.toUpperCase() + attributes.slice(1, -'EventAttributes'.length) : 'event';
}

/** What an event was about: the activity, timer, marker or child workflow it names. */
function subjectOf(event: HistoryEvent): string | undefined {
  const activity = event.activityTaskScheduledEventAttributes?.activityType?.name;
  if (activity) return `activity ${activity}`;
  const timer = event.timerStartedEventAttributes?.timerId;
  if (timer) return `timer ${timer}`;
  const marker = event.markerRecordedEventAttributes?.markerName;
  if (marker) return `marker ${marker}`;
  const child = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowType?.name;
  return child ? `child workflow ${child}` : undefined;
}
