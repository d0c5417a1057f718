/**
 * Starts what the whole test run shares, once: a PostgreSQL (embedded, or TEST_DATABASE_URL) with
 * the migrations applied, and the workflow bundle (built once instead of once per test file).
 * Test files receive both through environment variables.
 */
import { chmodSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { initializeDatabase } from '../db/data-source';
import { startEmbeddedPostgres } from '../db/embedded';
import { startDevServer } from '../lib/temporal/dev-server';
import { findTemporalBinary } from '../lib/temporal/find-binary';
import { writeWorkflowBundle } from '../workers/workflow-bundle';
import { freePort } from './support/free-port';

export default async function globalSetup(): Promise<void> {
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'lead-engagement-test-'));
  chmodSync(workDir, 0o755); // the embedded server runs as the postgres user and must reach its data dir

  let adminUrl: string;
  if (process.env.TEST_DATABASE_URL) {
    adminUrl = process.env.TEST_DATABASE_URL;
  } else {
    const pg = await startEmbeddedPostgres({ dataDir: path.join(workDir, 'pg'), port: await freePort(), database: 'postgres', fast: true });
    (globalThis as Record<string, unknown>).__EMBEDDED_PG__ = pg;
    adminUrl = pg.url;
  }
  const dbName = `lead_test_${process.pid}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName}`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${dbName}`;
  const db = await initializeDatabase({ url: url.toString(), migrate: true });
  await db.destroy();

  const bundlePath = path.join(workDir, 'workflow-bundle.js');
  await writeWorkflowBundle(bundlePath);

  process.env.TEST_DB_URL = url.toString();
  process.env.TEST_DB_ADMIN_URL = adminUrl;
  process.env.TEST_WORKFLOW_BUNDLE = bundlePath;
  process.env.TEST_WORK_DIR = workDir;
  process.env.FILES_DIR = path.join(workDir, 'files');
  // Production-mode children (the reliability suite's API and worker) refuse dev secrets; test files and
  // those children must share them (IDs, tokens), so the whole run gets the same strong test values.
  for (const name of ['JWT_SECRET', 'TRACKING_SECRET', 'FILE_URL_SECRET', 'ID_SECRET', 'DKIM_KEY_SECRET']) {
    process.env[name] ??= `test-only-${name.toLowerCase()}-${'x'.repeat(32)}`;
  }
  process.env.TEMPORAL_TEST_SERVER_PATH ??= findTemporalBinary('test-server', undefined);
  process.env.TEMPORAL_CLI_PATH ??= findTemporalBinary('cli', undefined);

  // One dev server for the run; each test file isolates itself with its own task queue.
  const temporal = await startDevServer({
    binary: process.env.TEMPORAL_CLI_PATH,
    dataDir: path.join(workDir, 'temporal'),
    port: await freePort(),
    uiPort: await freePort(),
    namespace: 'default',
    headless: true,
  });
  (globalThis as Record<string, unknown>).__TEMPORAL_DEV__ = temporal;
  process.env.TEST_TEMPORAL_ADDRESS = temporal.address;
}
