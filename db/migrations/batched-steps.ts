import type { QueryRunner } from 'typeorm';

/** Runs `work` in a transaction of its own, in a migration that runs outside one (`transaction = false`). */
export async function inTransaction(queryRunner: QueryRunner, work: () => Promise<void>): Promise<void> {
  await queryRunner.startTransaction();
  try {
    await work();
    await queryRunner.commitTransaction();
  } catch (err) {
    await queryRunner.rollbackTransaction();
    throw err;
  }
}

/**
 * Calls `update` for each run of `size` rows of `table` by ID, with the ID before the run and its
 * last: each statement then holds its rows' locks only so long, and a table of millions is
 * rewritten without one long transaction.
 */
export async function inIdBatches(
  queryRunner: QueryRunner,
  table: string,
  size: number,
  update: (after: string, last: string) => Promise<unknown>,
): Promise<void> {
  let after = '0';
  for (;;) {
    const [last] = (await queryRunner.query(
      `SELECT max(id)::text AS id FROM (SELECT id FROM ${table} WHERE id > $1 ORDER BY id LIMIT ${size}) batch`,
      [after],
    )) as { id: string | null }[];
    if (last.id === null) return;
    await update(after, last.id);
    after = last.id;
  }
}
