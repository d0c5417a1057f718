import type { Express } from 'express';
import { createApp } from '../../api/app';
import type { ApiKeyCache } from '../../api/auth/key-cache';
import { initializeDatabase } from '../../db/data-source';
import type { TestStack } from './stack';

export interface SecondApi {
  app: Express;
  stop(): Promise<void>;
}

/**
 * Another API process beside the stack's: its own database pool and a key cache that listens for
 * revocations as a deployed one does, so a test can prove what one process changes reaches the other.
 */
export async function startSecondApi(stack: TestStack): Promise<SecondApi> {
  const db = await initializeDatabase({ url: process.env.TEST_DB_URL as string, poolSize: 2 });
  const app = createApp({ db, workflows: { client: stack.client } as never }, { limits: { ipPerMinute: 1e9, authFailuresPerMinute: 1e9 } });
  const cache = app.locals.keyCache as ApiKeyCache;
  await cache.listen(process.env.TEST_DB_URL as string);
  return {
    app,
    stop: async () => {
      await cache.close();
      await db.destroy();
    },
  };
}
