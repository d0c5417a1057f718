import type { QueryRunner } from 'typeorm';
import { decodeId } from '../lib/ids';
import { interleave } from './support/interleave';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * Every transaction that writes a suppression locks the address's leads before the list's row, as
 * a merge does (domain/communications/email-suppressions.ts, lockLeadsOfAddress). Each test holds
 * a lead as a merge would, lets a suppression write wait for it, and then takes the list's row as
 * the merge would next: it must be free. When re-subscribe and unsubscribe took the row first, this
 * was a deadlock, which PostgreSQL broke by aborting one side (a 500 in CI's OpenAPI fuzzing).
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

async function leadWith(t: TestTenant, email: string) {
  const body = (await stack.http().post('/v1/leads').set(t.live).send(validLead({ email })).expect(201)).body.data;
  return { publicId: body.id as string, id: decodeId('lead', body.id) as string };
}

/**
 * A merge's two steps, as the first side: the lead locked, and, once the request waits for it, the
 * list's row, which must be free then (NOWAIT: were it held, PostgreSQL would break the deadlock by
 * aborting the request, whose retry would succeed and hide it).
 */
const merging = (leadId: string, t: TestTenant, address: string, listRow: { reason: string }[]) => ({
  statements: (tx: QueryRunner) => tx.query('SELECT id FROM leads WHERE id = $1 FOR UPDATE', [leadId]),
  whileSecondWaits: async (tx: QueryRunner) =>
    listRow.push(
      ...(await tx.query(
        `SELECT reason FROM email_suppressions WHERE tenant_id = $1 AND environment = 'live' AND address = $2 FOR UPDATE NOWAIT`,
        [t.tenant.id, address],
      )),
    ),
});

describe('suppression writes lock the leads before the list', () => {
  it('a re-subscribe waiting for a held lead has not taken the suppression yet, then completes', async () => {
    const t = await newTenant(stack.db);
    const lead = await leadWith(t, 'resub@example.com');
    const added = await stack.http().post('/v1/suppressions').set(t.live).send({ email: 'resub@example.com' }).expect(201);

    const listRow: { reason: string }[] = [];
    const { second } = await interleave(stack.db, merging(lead.id, t, 'resub@example.com', listRow), {
      request: () => stack.http().delete(`/v1/suppressions/${added.body.data.id}`).set(t.live),
      waitsIn: /\bleads\b/,
    });
    expect(listRow).toEqual([{ reason: 'unsubscribed' }]);
    expect(second.status).toBe(200);
    const after = await stack.http().get(`/v1/leads/${lead.publicId}`).set(t.live).expect(200);
    expect(after.body.data.unsubscribedAt).toBeNull();
    await stack
      .http()
      .get('/v1/suppressions?email=resub@example.com')
      .set(t.live)
      .expect(200, /"data":\[\]/);
  });

  it('a suppression waiting for a held lead has not written the list yet, then marks the lead', async () => {
    const t = await newTenant(stack.db);
    const lead = await leadWith(t, 'bounce@example.com');
    await stack.http().post('/v1/suppressions').set(t.live).send({ email: 'bounce@example.com' }).expect(201);

    const listRow: { reason: string }[] = [];
    const { second } = await interleave(stack.db, merging(lead.id, t, 'bounce@example.com', listRow), {
      request: () => stack.http().post('/v1/suppressions').set(t.live).send({ email: 'bounce@example.com', reason: 'bounced' }),
      waitsIn: /\bleads\b/,
    });
    expect(listRow).toEqual([{ reason: 'unsubscribed' }]);
    expect(second.status).toBe(201);
    expect(second.body.data.reason).toBe('bounced');
    const after = await stack.http().get(`/v1/leads/${lead.publicId}`).set(t.live).expect(200);
    expect(after.body.data.bouncedAt).not.toBeNull();
  });
});
