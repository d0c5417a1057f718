import type { DataSource, QueryRunner } from 'typeorm';

/**
 * Writes of a table paused in the middle of their transactions, one tenant's at a time: for the
 * first side of a race (interleave's `pause`) when nothing the write does after taking what the
 * race is about waits for a lock a test could hold (an opportunity's create, PATCH or conversion
 * writes no row another transaction could hold). A BEFORE INSERT OR UPDATE trigger takes a shared
 * advisory lock keyed by the row's tenant; `pause(tenantId)` holds it exclusively in the test's
 * transaction, so that tenant's writes wait in their INSERT or UPDATE until it ends. Every other
 * tenant's write takes its own key and goes on: other test files share the database.
 * `install` returns the removal, for afterAll.
 */
export async function installWritePause(db: DataSource, table: string): Promise<() => Promise<void>> {
  const name = `test_pause_${table}`;
  await db.query(
    `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       PERFORM pg_advisory_xact_lock_shared(hashtextextended('${name}:' || NEW.tenant_id, 0));
       RETURN NEW;
     END $$`,
  );
  await db.query(`CREATE OR REPLACE TRIGGER ${name} BEFORE INSERT OR UPDATE ON "${table}" FOR EACH ROW EXECUTE FUNCTION ${name}()`);
  return async () => {
    await db.query(`DROP TRIGGER IF EXISTS ${name} ON "${table}"`);
    await db.query(`DROP FUNCTION IF EXISTS ${name}()`);
  };
}

/** Pauses the writes of `table` by the tenant `tenantId` (its database ID) until `tx` ends (installWritePause). */
export const pausingWrites = (table: string, tenantId: string) => (tx: QueryRunner) =>
  tx.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`test_pause_${table}:${tenantId}`]);
