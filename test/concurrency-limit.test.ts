import { ConcurrencyLimit, ConcurrencyQueueFull } from '../lib/concurrency';

/** A task that runs until the test releases it, recording how many ran at once. */
function gatedTasks() {
  let running = 0;
  let maxRunning = 0;
  const releases: (() => void)[] = [];
  const task = () => {
    running++;
    maxRunning = Math.max(maxRunning, running);
    return new Promise<void>((resolve) =>
      releases.push(() => {
        running--;
        resolve();
      }),
    );
  };
  return { task, releases, maxRunning: () => maxRunning, running: () => running };
}

const settle = () => new Promise((r) => setImmediate(r));

describe('ConcurrencyLimit (bounds argon2 work so a login flood cannot take every thread)', () => {
  it('runs at most `limit` tasks at once and starts queued ones as slots free up', async () => {
    const limit = new ConcurrencyLimit(2, 10);
    const g = gatedTasks();
    const all = Array.from({ length: 6 }, () => limit.run(g.task));
    await settle();
    expect(g.running()).toBe(2);
    while (g.releases.length) {
      g.releases.shift()!();
      await settle();
      expect(g.running()).toBeLessThanOrEqual(2);
    }
    await Promise.all(all);
    expect(g.maxRunning()).toBe(2);
  });

  it('refuses at once when the queue is full, and frees the slot when a task fails', async () => {
    const limit = new ConcurrencyLimit(1, 1);
    const g = gatedTasks();
    const first = limit.run(g.task);
    const queued = limit.run(g.task);
    await expect(limit.run(g.task)).rejects.toBeInstanceOf(ConcurrencyQueueFull);
    g.releases.shift()!();
    await first;
    await settle();
    g.releases.shift()!();
    await queued;
    await expect(limit.run(() => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(limit.run(async () => 'still works')).resolves.toBe('still works');
  });
});
