import type { DataSource } from 'typeorm';
import type { TestTenant } from './stack';

const TRIGGER = 'test_moving_default_lead_status';

/**
 * The tenant's sandbox default lead status, given a new code (`moved-1`, `moved-2`, ...) at the
 * start of every statement that writes leads from connections named `applicationName`: a BEFORE
 * INSERT ... FOR EACH STATEMENT trigger on leads fires as the create's statement starts its insert
 * of the lead, which is what first evaluates its status check (domain/leads/write-leads.ts, every
 * other write of that statement follows the lead). The check then no longer finds the code the
 * create looked up (PostgreSQL skips a row a later command of the same transaction changed), as if
 * another request had moved the default between the create's lookup and its write; the new code
 * commits with the statement, so the create's next lookup finds it, and the next write moves it
 * again. No timing is involved, so the create misses on every pass. Other test files share the
 * database: only this tenant's default moves, and only for statements of this file's connections.
 * Returns the removal.
 */
export async function moveDefaultLeadStatusOnEveryWrite(
  db: DataSource,
  t: TestTenant,
  applicationName: string,
): Promise<() => Promise<void>> {
  await db.query(
    `CREATE OR REPLACE FUNCTION ${TRIGGER}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF current_setting('application_name') = ${literal(applicationName)} THEN
         UPDATE status_definitions SET code = 'moved-' || (coalesce(substring(code FROM '^moved-(\\d+)$')::int, 0) + 1)
          WHERE tenant_id = ${BigInt(t.tenant.id)} AND environment = 'sandbox' AND entity_type = 'lead' AND is_default;
       END IF;
       RETURN NULL;
     END $$`,
  );
  await db.query(`CREATE OR REPLACE TRIGGER ${TRIGGER} BEFORE INSERT ON leads FOR EACH STATEMENT EXECUTE FUNCTION ${TRIGGER}()`);
  return async () => {
    await db.query(`DROP TRIGGER IF EXISTS ${TRIGGER} ON leads`);
    await db.query(`DROP FUNCTION IF EXISTS ${TRIGGER}()`);
  };
}

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
