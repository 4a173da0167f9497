import { proxyActivities } from '@temporalio/workflow';

/** The activity of bench:floor: it does nothing, so all a run costs is Temporal's. */
export interface FloorActivities {
  nothing(): Promise<string>;
}

export const FLOOR_ACTIVITY_QUEUE = 'floor-activities';

const { nothing } = proxyActivities<FloorActivities>({
  startToCloseTimeout: '10 seconds',
  taskQueue: FLOOR_ACTIVITY_QUEUE,
});

/** The shape of an Extract Markdown run with nothing in it: one activity on a queue of its own, its result returned. */
export async function floorRun(): Promise<string> {
  return await nothing();
}
