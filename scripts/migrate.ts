/** `npm run db:migrate`: applies pending migrations to DATABASE_URL (or the embedded database). */
import { initializeDatabase, runMigrationsExclusively } from '../db/data-source';
import { resolveDatabase } from '../db/local-database';
import { describeError } from '../lib/describe-error';

async function main(): Promise<void> {
  const database = await resolveDatabase({ attachToRunning: true });
  const db = await initializeDatabase({ url: database.url });
  try {
    const applied = await runMigrationsExclusively(db);
    console.log(applied.length ? `Applied: ${applied.map((m) => m.name).join(', ')}` : 'Database is up to date.');
  } finally {
    await db.destroy();
    await database.stop();
  }
}

main().catch((err) => {
  console.error(`Migration failed: ${describeError(err)}`);
  process.exit(1);
});
