import type { Response } from 'supertest';
import { decodeId } from '../lib/ids';
import { waitUntil } from './support/wait-until';
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

/** Lead `id` locked FOR UPDATE by a transaction of the test's own, as a merge holds its pair. */
async function holdLead(id: string) {
  const runner = stack.db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
  await runner.query('SELECT id FROM leads WHERE id = $1 FOR UPDATE', [id]);
  const end = async () => {
    await runner.commitTransaction();
    await runner.release();
  };
  return { runner, pid, end };
}

/** Resolves once `request` waits in PostgreSQL for a lock `pid` holds; fails if it is answered first. */
function waitsFor(pid: number, request: Promise<Response>): Promise<unknown> {
  const waits = waitUntil(async () => {
    const rows = await stack.db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))`, [
      pid,
    ]);
    return rows.length > 0;
  }, 'the request to wait for the held lead');
  const answered = request.then((res) => {
    throw new Error(`answered ${res.status} without waiting for the held lead: ${JSON.stringify(res.body)}`);
  });
  answered.catch(() => undefined);
  return Promise.race([waits, answered]);
}

async function leadWith(t: TestTenant, email: string) {
  const body = (await stack.http().post('/v1/leads').set(t.live).send(validLead({ email })).expect(201)).body.data;
  return { publicId: body.id as string, id: decodeId('lead', body.id) as string };
}

/**
 * The merge's next step while the request waits: the list's row, which must be free (NOWAIT: when
 * held, PostgreSQL would break the deadlock by aborting the request, whose retry then succeeds).
 */
async function listRowIsFree(holder: Awaited<ReturnType<typeof holdLead>>, tenantId: string, address: string) {
  const rows = await holder.runner.query(
    `SELECT reason FROM email_suppressions WHERE tenant_id = $1 AND environment = 'live' AND address = $2 FOR UPDATE NOWAIT`,
    [tenantId, address],
  );
  return rows as { reason: string }[];
}

describe('suppression writes lock the leads before the list', () => {
  it('a re-subscribe waiting for a held lead has not taken the suppression yet, then completes', async () => {
    const t = await newTenant(stack.db);
    const lead = await leadWith(t, 'resub@example.com');
    const added = await stack.http().post('/v1/suppressions').set(t.live).send({ email: 'resub@example.com' }).expect(201);

    const holder = await holdLead(lead.id);
    const resubscribing = stack
      .http()
      .delete(`/v1/suppressions/${added.body.data.id}`)
      .set(t.live)
      .then((r) => r);
    await waitsFor(holder.pid, resubscribing);
    expect(await listRowIsFree(holder, t.tenant.id, 'resub@example.com')).toEqual([{ reason: 'unsubscribed' }]);
    await holder.end();

    expect((await resubscribing).status).toBe(200);
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

    const holder = await holdLead(lead.id);
    const bouncing = stack
      .http()
      .post('/v1/suppressions')
      .set(t.live)
      .send({ email: 'bounce@example.com', reason: 'bounced' })
      .then((r) => r);
    await waitsFor(holder.pid, bouncing);
    expect(await listRowIsFree(holder, t.tenant.id, 'bounce@example.com')).toEqual([{ reason: 'unsubscribed' }]);
    await holder.end();

    const res = await bouncing;
    expect(res.status).toBe(201);
    expect(res.body.data.reason).toBe('bounced');
    const after = await stack.http().get(`/v1/leads/${lead.publicId}`).set(t.live).expect(200);
    expect(after.body.data.bouncedAt).not.toBeNull();
  });
});
