import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { cacheLookups, type CacheLookups } from './countedCache';

/** What a worker process counts, besides the Temporal SDK's own metrics. */
export interface WorkerMetrics {
  registry: Registry;
  activities: Counter<'activity_type' | 'result'>;
  activitySeconds: Histogram<'activity_type' | 'result'>;
  cacheLookups: CacheLookups;
  /** Browser contexts open now: pages being rendered. */
  browserContexts: Gauge;
}

/** Seconds: a robots.txt check takes milliseconds, a render or a model call up to minutes. */
const ACTIVITY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];

export function createWorkerMetrics(): WorkerMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    activities: new Counter({
      name: 'webloom_activity_executions_total',
      help: 'Activity attempts run by this process, by type and result: completed, failed or cancelled',
      labelNames: ['activity_type', 'result'],
      registers: [registry],
    }),
    activitySeconds: new Histogram({
      name: 'webloom_activity_duration_seconds',
      help: 'Time one activity attempt ran in this process, by type and result',
      labelNames: ['activity_type', 'result'],
      buckets: ACTIVITY_BUCKETS,
      registers: [registry],
    }),
    cacheLookups: cacheLookups(registry),
    browserContexts: new Gauge({
      name: 'webloom_browser_contexts_open',
      help: 'Browser contexts open in this process: pages being rendered',
      registers: [registry],
    }),
  };
}
