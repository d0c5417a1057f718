import { Lead } from '../db/entities';
import { decodeId } from '../lib/ids';
import { unitOfWork, type UnitOfWork } from '../domain/unit-of-work';
import { newTenant, startStack, validLead, type TestStack } from './support/stack';

/**
 * Two units of work that lock the same two rows in opposite orders deadlock in PostgreSQL, which
 * aborts one of them (40P01). The aborted one runs again once the other has committed: both
 * succeed, where one used to fail its request with a 500 (seen in CI's OpenAPI fuzzing, on
 * DELETE /v1/suppressions/:id).
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

describe('a unit of work aborted to break a deadlock', () => {
  it('runs again, so both transactions of the deadlock commit', async () => {
    const t = await newTenant(stack.db);
    const create = async () =>
      decodeId('lead', (await stack.http().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data.id as string) as string;
    const [a, b] = [await create(), await create()];
    const ctx = { db: stack.db, workflows: stack.workflows, scope: { tenantId: t.tenant.id, environment: 'live' as const } };
    const bump = (tx: UnitOfWork, id: string) =>
      tx.sql((q) => `UPDATE ${q.table(Lead)} SET score = score + 1 WHERE ${q.scope()} AND id = ${q.value(id)}::bigint`);

    // Each transaction takes its first row, then waits until the other has taken its own, so the
    // second locks cross for certain (on a retry, the barrier is long open).
    let firstLocks = 0;
    let release!: () => void;
    const bothLocked = new Promise<void>((r) => (release = r));
    let attempts = 0;
    const crossing = (first: string, second: string) =>
      unitOfWork(ctx, async (tx) => {
        attempts++;
        await bump(tx, first);
        if (++firstLocks === 2) release();
        await bothLocked;
        await bump(tx, second);
      });

    const results = await Promise.allSettled([crossing(a, b), crossing(b, a)]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled']);
    expect(attempts).toBe(3); // one of the two ran twice
    const scores = await stack.db.query(`SELECT score FROM leads WHERE id = ANY($1::bigint[]) ORDER BY id`, [[a, b]]);
    expect(scores).toEqual([{ score: 2 }, { score: 2 }]);
  });
});
