/**
 * T5-signal's runs signal each workflow at most once, after the warm-up's work is done: what the
 * bench's fixed-count runs and its warm-up promise, checked without a Temporal server.
 */
import { forDuration } from '../bench/temporal-targets';
import { warmUp } from '../bench/warmup';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('bench signal runs', () => {
  it('stops a run at maxTasks and counts its rate over the time it took, not the time it was given', async () => {
    const run = await forDuration(30, 4, tick, 40);
    expect(run.count).toBe(40);
    // 40 tasks of about 5 ms, 4 at a time, take well under the 30 s given: over 30 s the rate would be 1.3/s.
    expect(run.rps).toBeGreaterThan(40 / 30);
  });

  it('settles after the warm-up and before the measured part begins', async () => {
    const order: string[] = [];
    await warmUp(
      async (_seconds, max) => {
        order.push(`load ${max ?? 'first second'}`);
        return max ?? 400;
      },
      1,
      async () => void order.push('settle'),
    );
    expect(order).toEqual(['load first second', 'load 600', 'settle']);
  });
});
