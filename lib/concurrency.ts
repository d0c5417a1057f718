/** Calls `fn` for every item, at most `limit` at a time; resolves when all have settled. */
export async function forEachConcurrently<T>(items: readonly T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await fn(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Thrown by ConcurrencyLimit.run when its queue is full: the caller should answer "retry later". */
export class ConcurrencyQueueFull extends Error {
  constructor() {
    super('concurrency limit queue is full');
  }
}

/**
 * Runs at most `limit` tasks at once; up to `maxQueued` more wait their turn, and beyond that
 * `run` rejects at once (ConcurrencyQueueFull) rather than letting a flood pile up without bound.
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly maxQueued: number,
  ) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.limit) {
      if (this.waiting.length >= this.maxQueued) throw new ConcurrencyQueueFull();
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    }
  }
}
