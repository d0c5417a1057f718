import { initializeDatabase } from '../db/data-source';

/** What every connection of the service's pools is set up with, whichever PostgreSQL it reaches. */
describe('data source', () => {
  it('runs its statements without JIT compilation, unless DATABASE_URL sets options of its own', async () => {
    const url = process.env.TEST_DB_URL as string;
    const db = await initializeDatabase({ url, poolSize: 1 });
    try {
      expect((await db.query('SHOW jit'))[0].jit).toBe('off');
    } finally {
      await db.destroy();
    }
    const own = new URL(url);
    own.searchParams.set('options', '-c jit=on');
    const chosen = await initializeDatabase({ url: own.toString(), poolSize: 1 });
    try {
      expect((await chosen.query('SHOW jit'))[0].jit).toBe('on');
    } finally {
      await chosen.destroy();
    }
  });
});
