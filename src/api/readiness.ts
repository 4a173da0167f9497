import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';
import type { Config } from '../config';
import { modelProblem } from '../operations/availability';
import type { Logger } from '../telemetry/logger';

/**
 * A poller Temporal saw this recently is still there: an idle worker renews its long poll about
 * once a minute. Temporal lists a worker that went away for minutes more, so a lost worker shows
 * as missing within this long.
 */
export const POLLER_SEEN_MS = 90_000;
/** An answer is reused this long, so probes cost Temporal a few calls every few seconds at most. */
const CACHE_MS = 5_000;
/** Past this, Temporal counts as unreachable. */
const CALL_TIMEOUT_MS = 3_000;

export type QueueType = 'workflow' | 'activity';

export interface NeededQueue {
  name: string;
  type: QueueType;
}

export interface ReadinessReport {
  ready: boolean;
  /** What keeps the service from answering requests, in words; empty when ready. */
  missing: string[];
  /** Live pollers per queue, as far as Temporal could be asked. */
  queues: Record<string, { type: QueueType; pollers: number }>;
}

/**
 * The queues this API's operations need a worker on: workflow tasks, fetches and renders always;
 * model calls and searches when the API offers the operations that make them.
 */
export function neededQueues(config: Pick<Config, 'taskQueues' | 'model' | 'research'>): NeededQueue[] {
  const queues: NeededQueue[] = [
    { name: config.taskQueues.workflows, type: 'workflow' },
    { name: config.taskQueues.fetch, type: 'activity' },
    { name: config.taskQueues.browser, type: 'activity' },
  ];
  if (!modelProblem(config.model)) queues.push({ name: config.taskQueues.model, type: 'activity' });
  if (config.research.search.engine) queues.push({ name: config.taskQueues.search, type: 'activity' });
  return queues;
}

interface Poller {
  lastAccessTime?: { seconds?: { toString(): string } | null; nanos?: number | null } | null;
}

/** Pollers Temporal saw within POLLER_SEEN_MS of `now`. */
export function livePollers(pollers: Poller[], now: number): number {
  return pollers.filter((poller) => {
    const seen = poller.lastAccessTime;
    if (!seen) return false;
    const at = Number(seen.seconds?.toString() ?? 0) * 1000 + (seen.nanos ?? 0) / 1e6;
    return now - at <= POLLER_SEEN_MS;
  }).length;
}

const QUEUE_TYPES: Record<QueueType, temporal.api.enums.v1.TaskQueueType> = {
  workflow: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  activity: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
};

/**
 * Whether this API can serve requests: Temporal answers, and a worker polls each queue its
 * operations need (DescribeTaskQueue). Answers are cached for a few seconds and concurrent
 * probes share one check.
 */
export class Readiness {
  private latest?: { at: number; report: Promise<ReadinessReport> };
  private wasReady?: boolean;
  private draining = false;

  constructor(
    private readonly client: Client,
    private readonly namespace: string,
    private readonly queues: NeededQueue[],
    private readonly logger: Logger,
  ) {}

  /** From now on not ready, whatever Temporal says: the API is shutting down, so send requests elsewhere. */
  drain(): void {
    this.draining = true;
  }

  check(): Promise<ReadinessReport> {
    if (this.draining) return Promise.resolve({ ready: false, missing: ['the API is shutting down'], queues: {} });
    const now = Date.now();
    if (!this.latest || now - this.latest.at > CACHE_MS) this.latest = { at: now, report: this.probe() };
    return this.latest.report;
  }

  private async probe(): Promise<ReadinessReport> {
    const report: ReadinessReport = { ready: true, missing: [], queues: {} };
    try {
      const counts = await this.client.connection.withDeadline(Date.now() + CALL_TIMEOUT_MS, () =>
        Promise.all(this.queues.map((queue) => this.pollers(queue))),
      );
      this.queues.forEach((queue, index) => {
        report.queues[queue.name] = { type: queue.type, pollers: counts[index]! };
        if (counts[index] === 0) report.missing.push(`no worker polls ${queue.name} for ${queue.type} tasks`);
      });
    } catch (err) {
      report.missing.push('Temporal is unreachable');
      this.logger.debug({ err }, 'readiness: Temporal did not answer');
    }
    report.ready = report.missing.length === 0;
    if (report.ready !== this.wasReady) {
      this.logger[report.ready ? 'info' : 'warn']({ missing: report.missing }, report.ready ? 'ready' : 'not ready');
      this.wasReady = report.ready;
    }
    return report;
  }

  private async pollers(queue: NeededQueue): Promise<number> {
    const { pollers } = await this.client.workflowService.describeTaskQueue({
      namespace: this.namespace,
      taskQueue: { name: queue.name, kind: temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType: QUEUE_TYPES[queue.type],
    });
    return livePollers(pollers, Date.now());
  }
}
