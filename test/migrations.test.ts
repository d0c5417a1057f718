import { Client } from 'pg';
import { createDataSource } from '../db/data-source';
import { migrations } from '../db/migrations';

/** A brand-new database per run of this test: migrations must work from nothing. */
async function emptyDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const adminUrl = process.env.TEST_DB_ADMIN_URL as string;
  const name = `lead_migrations_${process.pid}_${Date.now()}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

describe('migrations', () => {
  it('apply from an empty database, leave no drift from the entities, and revert cleanly', async () => {
    const empty = await emptyDatabase();
    const ds = createDataSource({ url: empty.url });
    try {
      await ds.initialize();
      const applied = await ds.runMigrations();
      expect(applied).toHaveLength(migrations.length);

      const drift = await ds.driver.createSchemaBuilder().log();
      expect(drift.upQueries.map((q) => q.query)).toEqual([]);

      for (let i = 0; i < migrations.length; i++) await ds.undoLastMigration();
      const tables = await ds.query(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_name <> 'migrations'`,
      );
      expect(tables).toEqual([]);
    } finally {
      if (ds.isInitialized) await ds.destroy();
      await empty.drop();
    }
  });
});
