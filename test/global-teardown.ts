import { rmSync } from 'node:fs';

export default async function globalTeardown(): Promise<void> {
  const temporal = (globalThis as Record<string, unknown>).__TEMPORAL_DEV__ as { stop(): Promise<void> } | undefined;
  if (temporal) await temporal.stop();
  const pg = (globalThis as Record<string, unknown>).__EMBEDDED_PG__ as { stop(): Promise<void> } | undefined;
  if (pg) await pg.stop();
  if (process.env.TEST_WORK_DIR && !process.env.KEEP_TEST_DIR) rmSync(process.env.TEST_WORK_DIR, { recursive: true, force: true });
}
