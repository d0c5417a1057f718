/** What every purge takes: how old a row must be, and how much one run deletes. */
export interface PurgeInput {
  /** Rows older than this go. */
  olderThanMs: number;
  /** Rows per DELETE: short statements, so a purge never holds many locks or a long transaction. */
  batchSize?: number;
  /** Batches per run: a large backlog is worked off over several runs instead of one endless one. */
  maxBatches?: number;
}

/**
 * Runs `deleteBatch` (one DELETE of at most `batchSize` rows created before `cutoff`, answering how
 * many it deleted) until one deletes fewer than a batch or `maxBatches` have run.
 */
export async function purgeInBatches(
  input: PurgeInput,
  defaults: { batchSize: number; maxBatches: number },
  deleteBatch: (cutoff: Date, batchSize: number) => Promise<number>,
): Promise<{ deleted: number }> {
  const cutoff = new Date(Date.now() - input.olderThanMs);
  const batchSize = input.batchSize ?? defaults.batchSize;
  const maxBatches = input.maxBatches ?? defaults.maxBatches;
  let deleted = 0;
  for (let batch = 0; batch < maxBatches; batch++) {
    const count = await deleteBatch(cutoff, batchSize);
    deleted += count;
    if (count < batchSize) break;
  }
  return { deleted };
}

/** The affected count of a DELETE through TypeORM's query, which answers [rows, count]. */
export const affectedCount = (result: unknown): number => (result as [unknown, number])[1];
