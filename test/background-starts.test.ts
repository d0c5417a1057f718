import { BackgroundStarts } from '../lib/temporal/background-starts';

describe('background workflow starts', () => {
  it('runs at most `concurrency` at once, drops beyond capacity, and drains', async () => {
    const starts = new BackgroundStarts({ concurrency: 2, capacity: 3 });
    let running = 0;
    let most = 0;
    const done: number[] = [];
    const task = (i: number) => async () => {
      most = Math.max(most, ++running);
      await new Promise((r) => setTimeout(r, 10));
      running--;
      done.push(i);
    };
    // Two start at once; three wait; the sixth finds the queue full.
    const accepted = [0, 1, 2, 3, 4, 5].map((i) => starts.enqueue(`t${i}`, task(i)));
    expect(accepted).toEqual([true, true, true, true, true, false]);
    await starts.drain();
    expect(done.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(most).toBe(2);
  });

  it('stops waiting at the bound on shutdown, leaving a hung start to the sweep', async () => {
    const starts = new BackgroundStarts();
    starts.enqueue('hung', () => new Promise(() => undefined));
    const waited = await Promise.race([starts.drain(50).then(() => 'drained'), new Promise((r) => setTimeout(() => r('hung'), 2000))]);
    expect(waited).toBe('drained');
  });
});
