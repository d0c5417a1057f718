interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (err: unknown) => void;
}

/**
 * Group commit: `add` resolves once its item is written, with the result the write gave it (the
 * write returns one result per item, in order, or nothing). The first item is written at once;
 * items that arrive while a write is in flight go together in the next one. Under load that is
 * one statement for many requests, and nobody waits for a timer.
 */
export class GroupCommit<T, R = void> {
  private queue: Waiting<T, R>[] = [];
  private writing = false;

  constructor(
    private readonly write: (items: T[]) => Promise<R[] | void>,
    /** The most items one write takes. */
    private readonly maxBatch = 500,
  ) {}

  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      this.pump();
    });
  }

  /** Whether nothing is queued or being written. */
  get idle(): boolean {
    return !this.writing && this.queue.length === 0;
  }

  private pump(): void {
    if (this.writing || !this.queue.length) return;
    this.writing = true;
    void this.writeBatch(this.queue.splice(0, this.maxBatch));
  }

  private async writeBatch(batch: Waiting<T, R>[]): Promise<void> {
    let outcome: { results: R[] | void } | { error: unknown };
    try {
      outcome = { results: await this.write(batch.map((w) => w.item)) };
    } catch (error) {
      outcome = { error };
    }
    // The next write starts before this one's items go on, so they see the group as it now is (idle).
    this.writing = false;
    this.pump();
    if ('error' in outcome) for (const w of batch) w.reject(outcome.error);
    else batch.forEach((w, i) => w.resolve(outcome.results ? outcome.results[i] : (undefined as R)));
  }
}
