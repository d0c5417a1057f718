import { proxyActivities, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import { laneTaskQueue, type ActivityLane } from './activity-lanes';

/**
 * Activities on one of the worker's lanes (workflows/activity-lanes.ts). Call it inside the
 * workflow function: the lane's queue derives from this run's own task queue, known only there.
 */
export const proxyLaneActivities = <A>(lane: ActivityLane, options: ActivityOptions) =>
  proxyActivities<A>({ ...options, taskQueue: laneTaskQueue(workflowInfo().taskQueue, lane) });
