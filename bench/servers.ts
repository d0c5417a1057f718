/**
 * One server per child process, so the load generator (the parent) and the server under test do
 * not share an event loop. Modes: the bare Express baselines of issue 8, or the real app.
 */
import express from 'express';
import { Pool } from 'pg';
import { createApp } from '../api/app';
import { initializeDatabase } from '../db/data-source';
import { connectTemporalClient } from '../lib/temporal/client';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';

interface Args {
  mode: 'bare-json' | 'bare-insert' | 'bare-select' | 'app';
  dbUrl: string;
  temporalAddress: string;
  taskQueue: string;
}

async function main(): Promise<void> {
  // Exit normally on the parent's kill, so `node --cpu-prof dist/bench/run.js` writes this process's profile.
  process.once('SIGTERM', () => process.exit(0));
  const args = JSON.parse(process.argv[2]) as Args;
  const app = args.mode === 'app' ? await realApp(args) : bareApp(args);
  const server = app.listen(0, '127.0.0.1', () => {
    process.send?.({ port: (server.address() as { port: number }).port });
  });
}

async function realApp(args: Args) {
  const db = await initializeDatabase({ url: args.dbUrl, poolSize: 20 });
  const client = await connectTemporalClient(args.temporalAddress, 'default');
  return createApp(
    { db, workflows: new WorkflowStarter(client, args.taskQueue) },
    { limits: { ipPerMinute: 1e9, authFailuresPerMinute: 1e9 } },
  );
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
    const { rows } = await pool.query({
      name: 'insert-lead',
      text: `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name) VALUES ($1, 'live', $2, $3, $4, $5) RETURNING *`,
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

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
