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

/**
 * A group commit per key (a tenant's scope) and owner (the database it writes to), made on first
 * use and dropped once idle: a scope that stopped writing holds nothing.
 */
export class KeyedGroupCommit<T, R> {
  private readonly byOwner = new WeakMap<object, Map<string, GroupCommit<T, R>>>();

  constructor(
    private readonly write: (items: T[]) => Promise<R[] | void>,
    private readonly maxBatch?: number,
  ) {}

  async add(owner: object, key: string, item: T): Promise<R> {
    let groups = this.byOwner.get(owner);
    if (!groups) this.byOwner.set(owner, (groups = new Map()));
    let group = groups.get(key);
    if (!group) groups.set(key, (group = new GroupCommit(this.write, this.maxBatch)));
    try {
      return await group.add(item);
    } finally {
      if (group.idle && groups.get(key) === group) groups.delete(key);
    }
  }
}

/** An item's outcome in a group: its own result, or the error that failed it alone. */
export type Settled<R> = { ok: true; value: R } | { ok: false; error: unknown };

/**
 * Writes the items together; when that fails, each alone, one after the other (a scope still
 * holds one connection at a time), so one bad item fails only its own request.
 */
export async function togetherOrEachAlone<T, R>(items: T[], write: (items: T[]) => Promise<R[]>): Promise<Settled<R>[]> {
  try {
    return (await write(items)).map((value) => ({ ok: true, value }));
  } catch (error) {
    if (items.length === 1) return [{ ok: false, error }];
    const settled: Settled<R>[] = [];
    for (const item of items) settled.push(...(await togetherOrEachAlone([item], write)));
    return settled;
  }
}

/** The result of a settled item, or its error thrown. */
export function unwrap<R>(settled: Settled<R>): R {
  if (!settled.ok) throw settled.error;
  return settled.value;
}
