/**
 * `npm run api`: the production-style API process against external PostgreSQL and Temporal.
 * Stateless; run as many as needed behind a load balancer. Migrations run separately (npm run db:migrate).
 */
import { initializeDatabase } from '../db/data-source';
import { config } from '../lib/config';
import { listen } from '../lib/http-server';
import { logger } from '../lib/logger';
import { connectTemporalClient } from '../lib/temporal/client';
import { SHUTDOWN_DRAIN_MS, WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createApp, flushApp } from './app';
import type { ApiKeyCache } from './auth/key-cache';

async function main(): Promise<void> {
  if (!config.DATABASE_URL || !config.TEMPORAL_ADDRESS) {
    throw new Error('npm run api needs DATABASE_URL and TEMPORAL_ADDRESS; for a self-contained dev stack use npm start');
  }
  const db = await initializeDatabase({
    url: config.DATABASE_URL,
    applicationName: 'lead-engagement-api',
    statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
    poolSize: config.DB_POOL_SIZE,
  });
  const client = await connectTemporalClient(config.TEMPORAL_ADDRESS, config.TEMPORAL_NAMESPACE);
  const workflows = new WorkflowStarter(client, undefined, { holdMs: config.TEST_BACKGROUND_START_DELAY_MS });
  const app = createApp(
    { db, workflows, webhooks: { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS } },
    { publicBaseUrl: config.PUBLIC_BASE_URL },
  );
  const keyCache = app.locals.keyCache as ApiKeyCache;
  await keyCache.listen(config.DATABASE_URL);
  const server = await listen(app, config.PORT);
  logger.info({ port: server.port }, 'api listening');
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, async () => {
      logger.info({ signal }, 'api draining');
      await server.close();
      await workflows.drain(SHUTDOWN_DRAIN_MS);
      await flushApp(app);
      await keyCache.close();
      await client.connection.close();
      await db.destroy();
      process.exit(0);
    });
  }
}

main().catch((err) => {
  logger.fatal({ err }, 'api failed to start');
  process.exit(1);
});
