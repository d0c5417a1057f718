import { condition, defineSignal, proxyActivities, setHandler } from '@temporalio/workflow';

const { benchActivity } = proxyActivities<{ benchActivity(): Promise<void> }>({ startToCloseTimeout: '10 seconds' });

/** T6's baseline: the least a workflow with one activity can cost on this server. */
export async function benchOneActivity(): Promise<void> {
  await benchActivity();
}

const engagement = defineSignal<[{ type: string }]>('engagement');

/**
 * T5's baseline: what the bench campaign's enrollments do in Temporal, run by a bare worker. It
 * waits up to a day for a click; each signal is a workflow task, and an open does not decide it.
 */
export async function benchAwaitClick(): Promise<void> {
  let clicked = false;
  setHandler(engagement, ({ type }) => {
    if (type === 'link_click') clicked = true;
  });
  await condition(() => clicked, '1 day');
}
