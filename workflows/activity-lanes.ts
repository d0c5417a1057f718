/**
 * Activities that wait on someone else's server run on task queues of their own, beside the
 * workflows' queue (which keeps the activities that work in our database):
 * - `webhooks`: HTTP calls to tenants' endpoints, up to 30 s each and mostly waiting;
 * - `sends`: email and SMS provider calls, rate-limited per queue to the provider's limits;
 * - `ai`: model calls, up to a minute each.
 * So a slow endpoint or provider fills only its own slots, and the database queue's slots can
 * match the worker's pool (docs/decisions.md, "Worker task queues").
 *
 * Pure names, shared by workflows and the worker: no I/O, no configuration here. A lane's queue is derived from the
 * workflow's own queue, so each deployment (and each test file) keeps its lanes apart.
 */
export type ActivityLane = 'webhooks' | 'sends' | 'ai';

export const laneTaskQueue = (workflowTaskQueue: string, lane: ActivityLane): string => `${workflowTaskQueue}-${lane}`;
