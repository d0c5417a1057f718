/**
 * `npm run admin -- ...`: operator commands. Only the JSON result goes to stdout (so it can be
 * piped to jq); progress and errors go to stderr.
 */
import { initializeDatabase } from '../db/data-source';
import { resolveDatabase } from '../db/local-database';
import { describeError } from '../lib/describe-error';
import { runAdmin, UsageError, USAGE } from './admin-commands';

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv.includes('--help')) {
    console.error(USAGE);
    process.exit(argv.length === 0 ? 1 : 0);
  }
  // Beside a running `npm start`, this connects to the PostgreSQL it holds instead of starting a second one.
  const database = await resolveDatabase({ attachToRunning: true, onLog: (line) => console.error(line) });
  const db = await initializeDatabase({ url: database.url, migrate: true });
  try {
    process.stdout.write(JSON.stringify(await runAdmin(db, argv), null, 2) + '\n');
  } finally {
    await db.destroy();
    await database.stop();
  }
}

main().catch((err) => {
  console.error(err instanceof UsageError ? `admin: ${err.message}` : `admin failed: ${describeError(err)}`);
  process.exit(err instanceof UsageError ? 2 : 1);
});
