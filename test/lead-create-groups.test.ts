import { autoEnrollmentsMade, triggeredCampaign } from './support/campaign-api';
import { groupSizes as sizesOf } from './support/group-sizes';
import { whileTableLocked } from './support/locked-table';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

/**
 * Concurrent POST /v1/leads of one scope share one statement (domain/leads/grouped-creates.ts).
 * Each test holds the leads table locked while its creates arrive, so the first creates wait in
 * PostgreSQL and the rest queue behind them and go together: groups form for certain, not by luck.
 * The app runs with the default fair share (4 requests of a tenant at once, 1 while another
 * tenant is active): a create gives its slot back while it waits for its group only while its
 * tenant is alone.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(async () => stack.stop());

const groupSizes = () => sizesOf('lead_create_group_size');

/** Runs `send` while INSERTs into leads wait on a lock, until the first create of each of `scopes` waits there. */
const whileLeadsLocked = <T>(send: () => Promise<T>, scopes = 1) => whileTableLocked(stack, 'leads', 'WITH statuses AS', send, scopes);

const firstLead = async (t: TestTenant) =>
  // The tenant's first lead seeds its statuses; it is written alone, before the tests' bursts.
  expect((await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).status).toBe(201);

const auditOf = async (t: TestTenant, id: string) =>
  (await stack.http().get(`/v1/audit-logs?resourceId=${id}`).set(t.sandbox)).body.data.map((e: { requestId: string }) => e.requestId);

describe('concurrent lead creates written together', () => {
  it('gives each create its own lead, answer, audit entry and event, with fewer statements than creates', async () => {
    const t = await newTenant(stack.db);
    await firstLead(t);
    await stack.subscribe(t);
    const before = await groupSizes();
    const inputs = Array.from({ length: 12 }, (_, i) =>
      validLead({
        phone: `+1 415 555 ${String(1000 + i)}`,
        score: i,
        customFields: { n: i },
        ...(i % 3 === 0 ? { status: 'qualified' } : {}),
      }),
    );
    const responses = await whileLeadsLocked(() =>
      Promise.all(
        inputs.map((lead, i) => stack.http().post('/v1/leads').set(t.sandbox).set('X-Request-Id', `group-${process.pid}-${i}`).send(lead)),
      ),
    );
    const after = await groupSizes();
    expect(after.items - before.items).toBe(12);
    // The first alone, then the other eleven, a statement per status: more than the tenant's share
    // of 4 waited together, as each gave its slot back.
    expect(after.groups - before.groups).toBe(3);

    expect(responses.map((r) => r.status)).toEqual(inputs.map(() => 201));
    for (const [i, res] of responses.entries()) {
      const input = inputs[i] as Record<string, unknown>;
      expect(res.body.data).toMatchObject({
        email: input.email,
        firstName: input.firstName,
        score: i,
        customFields: { n: i },
        status: i % 3 === 0 ? 'qualified' : 'new',
        phone: input.phone,
      });
      expect((await stack.http().get(`/v1/leads/${res.body.data.id}`).set(t.sandbox)).body.data).toEqual(res.body.data);
      expect(await auditOf(t, res.body.data.id)).toEqual([`group-${process.pid}-${i}`]);
    }
    expect(new Set(responses.map((r) => r.body.data.id)).size).toBe(12);
    const events: { id: string }[] = await stack.db.query(
      `SELECT data->>'leadId' AS id FROM events WHERE tenant_id = $1 AND type = 'lead.created'`,
      [t.tenant.id],
    );
    expect(events.map((e) => e.id).sort()).toEqual(responses.map((r) => r.body.data.id).sort());
  });

  it('creates both of two leads with one email in one group, and finds them duplicates of each other', async () => {
    const t = await newTenant(stack.db);
    await firstLead(t);
    const email = `twin-${process.pid}-${Date.now()}@example.com`;
    const others = Array.from({ length: 6 }, () => validLead());
    const [a, b] = await whileLeadsLocked(() =>
      Promise.all(
        [validLead({ email }), validLead({ email }), ...others].map((lead) => stack.http().post('/v1/leads').set(t.sandbox).send(lead)),
      ),
    );
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(a.body.data.id).not.toBe(b.body.data.id);
    const duplicatesOf = async (id: string) =>
      (await stack.http().get(`/v1/leads/${id}/duplicates`).set(t.sandbox)).body.data.map((d: { lead: { id: string } }) => d.lead.id);
    expect(await duplicatesOf(a.body.data.id)).toEqual([b.body.data.id]);
    expect(await duplicatesOf(b.body.data.id)).toEqual([a.body.data.id]);
    // One of the two could not claim the email: it is checked by its duplicate workflow.
    await waitUntil(async () => {
      const [{ n }] = await stack.db.query(`SELECT count(*)::int AS n FROM leads WHERE email = $1 AND duplicates_checked_at IS NOT NULL`, [
        email,
      ]);
      return n === 2;
    }, 'both twins to be checked for duplicates');
  });

  it('keeps tenants apart: concurrent creates of two tenants are each written in their own scope, each tenant within its shared fair share', async () => {
    const [t1, t2] = [await newTenant(stack.db), await newTenant(stack.db)];
    await firstLead(t1);
    await firstLead(t2);
    const inputs = Array.from({ length: 10 }, (_, i) => ({ tenant: i % 2 ? t2 : t1, lead: validLead() }));
    const before = await groupSizes();
    const responses = await whileLeadsLocked(
      () => Promise.all(inputs.map(({ tenant, lead }) => stack.http().post('/v1/leads').set(tenant.sandbox).send(lead))),
      2,
    );
    expect(responses.map((r) => r.status)).toEqual(inputs.map(() => 201));
    // Two tenants at once: each keeps its share of one request at a time, so no create of either
    // waited in a group, and neither took the API from the other.
    expect((await groupSizes()).groups - before.groups).toBe(10);
    for (const t of [t1, t2]) {
      const listed = (await stack.http().get('/v1/leads?limit=100').set(t.sandbox)).body.data.map((l: { email: string }) => l.email);
      for (const { tenant, lead } of inputs) expect(listed.includes(lead.email)).toBe(tenant === t);
    }
    for (const [i, res] of responses.entries()) {
      const other = inputs[i].tenant === t1 ? t2 : t1;
      expect((await stack.http().get(`/v1/leads/${res.body.data.id}`).set(other.sandbox)).status).toBe(404);
    }
  });

  it("enrolls every lead of a group in the tenant's lead_created campaigns", async () => {
    const t = await newTenant(stack.db);
    await firstLead(t);
    const campaign = await triggeredCampaign(stack.http, t.sandbox, 'lead_created', 'Welcome');
    const before = await groupSizes();
    const responses = await whileLeadsLocked(() =>
      Promise.all(Array.from({ length: 8 }, () => stack.http().post('/v1/leads').set(t.sandbox).send(validLead()))),
    );
    expect((await groupSizes()).groups - before.groups).toBeLessThan(8);
    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect((await campaign.enrolledLeadIds()).sort()).toEqual(responses.map((r) => r.body.data.id).sort());
  });
});
