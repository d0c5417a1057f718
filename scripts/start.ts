/**
 * `npm start`: the whole stack on one machine with nothing else installed. Embedded PostgreSQL
 * unless DATABASE_URL, a Temporal dev server unless TEMPORAL_ADDRESS, migrations, the worker (a
 * child process: scripts/worker-process.ts) and the API in this process. Ctrl-C stops everything;
 * the next start reuses DATA_DIR.
 */
import { createApp, flushApp } from '../api/app';
import type { ApiKeyCache } from '../api/auth/key-cache';
import { initializeDatabase } from '../db/data-source';
import { resolveDatabase } from '../db/local-database';
import { config } from '../lib/config';
import { listen } from '../lib/http-server';
import { logger } from '../lib/logger';
import { connectTemporalClient } from '../lib/temporal/client';
import { startDevServer } from '../lib/temporal/dev-server';
import { findTemporalBinary } from '../lib/temporal/find-binary';
import { SHUTDOWN_DRAIN_MS, WorkflowStarter } from '../lib/temporal/workflow-starter';
import { describeError } from '../lib/describe-error';
import path from 'node:path';
import { ensureDevTenant } from './dev-credentials';
import { startWorkerProcess } from './worker-process';

const step = (msg: string) => console.log(`[start] ${msg}`);

async function main(): Promise<void> {
  const stops: (() => Promise<void>)[] = [];
  const shutdown = async (code: number) => {
    step('shutting down ...');
    for (const stop of stops.reverse()) await stop().catch((err) => logger.error({ err }, 'shutdown step failed'));
    step('stopped');
    process.exit(code);
  };
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      void shutdown(0);
    });
  }

  try {
    step(
      config.DATABASE_URL ? 'using DATABASE_URL' : `starting embedded PostgreSQL (data in ${path.join(config.DATA_DIR, 'postgres')}) ...`,
    );
    const database = await resolveDatabase({ attachToRunning: false });
    stops.push(database.stop);

    let temporalAddress = config.TEMPORAL_ADDRESS;
    let temporalUi = config.TEMPORAL_UI_URL;
    if (!temporalAddress) {
      const binary = findTemporalBinary('cli', config.TEMPORAL_CLI_PATH, step);
      step(`starting Temporal dev server (${binary}) ...`);
      const dev = await startDevServer({
        binary,
        dataDir: config.DATA_DIR,
        port: config.TEMPORAL_DEV_PORT,
        uiPort: config.TEMPORAL_UI_PORT,
        namespace: config.TEMPORAL_NAMESPACE,
        onLog: (line) => logger.debug({ temporal: line }),
        onRetry: (message) => logger.warn(message),
      });
      stops.push(dev.stop);
      temporalAddress = dev.address;
      temporalUi ??= dev.uiUrl;
    }

    step('running migrations ...');
    // The API's pool (its statement_timeout) and, below, the worker's own: background work never takes the API's connections.
    const db = await initializeDatabase({
      url: database.url,
      migrate: true,
      applicationName: 'lead-engagement-api',
      statementTimeoutMs: config.DB_STATEMENT_TIMEOUT_MS,
      poolSize: config.DB_POOL_SIZE,
    });
    stops.push(() => db.destroy());

    step(config.WORKFLOW_BUNDLE_PATH ? 'starting worker ...' : 'starting worker (bundling workflows) ...');
    const worker = await startWorkerProcess({ ...process.env, DATABASE_URL: database.url, TEMPORAL_ADDRESS: temporalAddress }, (pid) =>
      step(`worker running (process ${pid})`),
    );
    stops.push(worker.stop);
    const client = await connectTemporalClient(temporalAddress, config.TEMPORAL_NAMESPACE);
    stops.push(() => client.connection.close());
    const workflows = new WorkflowStarter(client);
    const webhooks = { allowPrivateTargets: config.WEBHOOK_ALLOW_PRIVATE_TARGETS, retryDelaysMs: config.WEBHOOK_RETRY_DELAYS_MS };

    const baseUrl = config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`;
    const app = createApp({ db, workflows, webhooks }, { publicBaseUrl: baseUrl, temporalUiUrl: temporalUi });
    const keyCache = app.locals.keyCache as ApiKeyCache;
    await keyCache.listen(database.url);
    stops.push(() => keyCache.close());
    stops.push(() => flushApp(app));
    stops.push(() => workflows.drain(SHUTDOWN_DRAIN_MS));
    const server = await listen(app, config.PORT);
    stops.push(server.close);

    const { creds, created } = await ensureDevTenant(db, config.DATA_DIR);
    console.log(
      [
        '',
        '  Lead engagement service is running',
        `  API base URL      ${baseUrl}/v1`,
        `  API docs          ${baseUrl}/docs   (OpenAPI: ${baseUrl}/v1/openapi.json)`,
        `  Dashboard         ${baseUrl}/dashboard`,
        `  Temporal UI       ${temporalUi ?? '(external Temporal: set TEMPORAL_UI_URL)'}`,
        `  Dev tenant        ${creds.tenantId}${created ? ' (created now)' : ''}`,
        `  Dev login         ${creds.email} / ${creds.password}`,
        `  Live API key      ${creds.liveKey}`,
        `  Sandbox API key   ${creds.sandboxKey}`,
        '',
        `  Try: curl -s -H "X-API-Key: ${creds.sandboxKey}" ${baseUrl}/v1/leads`,
        '  More tenants (in another terminal, beside this one):',
        '    npm run admin -- tenant create --name "Acme Corp" --plan pro',
        '  Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  } catch (err) {
    logger.fatal({ err }, 'start failed');
    console.error(`[start] failed: ${describeError(err)}`);
    await shutdown(1);
  }
}

void main();
