/**
 * The bare Express baselines (what Express and pg alone reach on this machine, the ceiling each
 * benchmark row is compared with), one per child process, so the load generator (the parent)
 * and the server under test do not share an event loop. The service itself runs as shipped (bench/shipped.ts).
 */
import express from 'express';
import { Pool } from 'pg';

interface Args {
  mode: 'bare-json' | 'bare-insert' | 'bare-select';
  dbUrl: string;
}

function main(): void {
  // Exit normally on the parent's kill, so `node --cpu-prof dist/bench/run.js` writes this process's profile.
  process.once('SIGTERM', () => process.exit(0));
  const args = JSON.parse(process.argv[2]) as Args;
  const app = bareApp(args);
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as { port: number }).port });
  });
}

function bareApp(args: Args) {
  const app = express();
  const pool = new Pool({ connectionString: args.dbUrl, max: 20 });
  app.use(express.json());
  app.get('/json', (_req, res) => {
    res.json({ ok: true });
  });
  app.post('/leads', async (req, res) => {
    const b = req.body as { email: string; firstName: string; lastName: string; tenantId: string };
    // Marked checked, as the service marks a lead whose keys are all new: an unchecked row would
    // make the service's dedupe sweep start a workflow per baseline lead while later targets run.
    const { rows } = await pool.query({
      name: 'insert-lead',
      text: `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, duplicates_checked_at)
        VALUES ($1, 'live', $2, $3, $4, $5, now()) RETURNING *`,
      values: [b.tenantId, b.email, b.email.toLowerCase(), b.firstName, b.lastName],
    });
    res.status(201).json(rows[0]);
  });
  app.get('/leads/:id', async (req, res) => {
    const { rows } = await pool.query({ name: 'select-lead', text: 'SELECT * FROM leads WHERE id = $1', values: [req.params.id] });
    res.json(rows[0]);
  });
  return app;
}

main();
