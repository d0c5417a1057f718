import { Client } from 'pg';
import { createDataSource, runMigrationsExclusively } from '../db/data-source';
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

  it('are safe to run from several processes at once: every run succeeds and each migration is applied once', async () => {
    const empty = await emptyDatabase();
    const sources = [1, 2, 3].map(() => createDataSource({ url: empty.url, poolSize: 2 }));
    try {
      await Promise.all(sources.map((ds) => ds.initialize()));
      const runs = await Promise.all(sources.map((ds) => runMigrationsExclusively(ds)));
      expect(runs.map((applied) => applied.length).sort((a, b) => b - a)).toEqual([migrations.length, 0, 0]);
      const rows: { name: string; n: number }[] = await sources[0].query('SELECT name, count(*)::int AS n FROM migrations GROUP BY name');
      expect(rows).toHaveLength(migrations.length);
      expect(rows.every((r) => r.n === 1)).toBe(true);
    } finally {
      for (const ds of sources) if (ds.isInitialized) await ds.destroy();
      await empty.drop();
    }
  });
});
