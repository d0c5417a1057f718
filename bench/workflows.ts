import { proxyActivities } from '@temporalio/workflow';

const { benchActivity } = proxyActivities<{ benchActivity(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** T6's baseline: the least a workflow with one activity can cost on this server. */
export async function benchOneActivity(): Promise<void> {
  await benchActivity();
}

/** T5's baseline: started and signalled, never run (no worker polls its queue). */
export async function benchNoop(): Promise<void> {}
