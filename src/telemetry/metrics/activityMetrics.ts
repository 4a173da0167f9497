import type { ActivityInterceptorsFactory } from '@temporalio/worker';
import type { WorkerMetrics } from './workerMetrics';

/** Counts and times every activity attempt by its outcome; a failure is counted, then thrown on as it was. */
export function activityMetrics(metrics: WorkerMetrics): ActivityInterceptorsFactory {
  return (context) => ({
    inbound: {
      async execute(input, next) {
        const started = performance.now();
        const record = (result: 'completed' | 'failed' | 'cancelled') => {
          const labels = { activity_type: context.info.activityType, result };
          metrics.activities.inc(labels);
          metrics.activitySeconds.observe(labels, (performance.now() - started) / 1000);
        };
        try {
          const value = await next(input);
          record('completed');
          return value;
        } catch (err) {
          record(context.cancellationSignal.aborted ? 'cancelled' : 'failed');
          throw err;
        }
      },
    },
  });
}
