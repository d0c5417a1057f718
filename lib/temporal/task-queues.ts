import { config } from '../config';

/** The workflows' queue (and the database activities'); activity lanes derive theirs from it (workflows/activity-lanes.ts). */
export const TASK_QUEUE = config.TEMPORAL_TASK_QUEUE;
