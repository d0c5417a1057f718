import { decodeId, encodeId } from '../lib/ids';
import { autoEnrollmentsMade, triggeredCampaign } from './support/campaign-api';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
  await stack.subscribe(tenant);
});
afterAll(() => stack.stop());

const batch = (leads: unknown[], headers: Record<string, string> = {}) =>
  stack
    .http()
    .post('/v1/leads/batch')
    .set({ ...tenant.live, ...headers })
    .send({ leads });

describe('POST /v1/leads/batch', () => {
  it('answers 200 with a result per item in request order: an invalid item fails alone, a repeated email is created once', async () => {
    const email = `batch-${Date.now()}@example.com`;
    const res = await batch([
      validLead({ email, lastName: 'Batchington' }),
      { email: 'not-an-email', firstName: 'Bad' },
      validLead({ email: email.toUpperCase() }),
      validLead({ status: 'no-such-status' }),
      validLead({ phone: '+44 20 7946 0018', score: 70, customFields: { plan: 'pro' } }),
    ]).expect(200);
    const results = res.body.data;
    expect(results.map((r: { index: number; status: string }) => [r.index, r.status])).toEqual([
      [0, 'created'],
      [1, 'error'],
      [2, 'duplicate'],
      [3, 'error'],
      [4, 'created'],
    ]);
    expect(results[2].id).toBe(results[0].id);
    expect(results[1].errors.map((e: { field: string }) => e.field)).toEqual(expect.arrayContaining(['email', 'lastName']));
    expect(results[3].errors).toEqual([{ field: 'status', message: expect.stringContaining('lead statuses') }]);

    const lead = await stack.http().get(`/v1/leads/${results[4].id}`).set(tenant.live).expect(200);
    expect(lead.body.data).toMatchObject({ phone: '+44 20 7946 0018', score: 70, customFields: { plan: 'pro' }, source: 'api' });
    const found = await stack.http().get('/v1/search?q=batchington&type=lead').set(tenant.live).expect(200);
    expect(found.body.data.map((d: { id: string }) => d.id)).toContain(results[0].id);
    // A batch lead's document holds its custom fields.
    const pro = await stack.http().get('/v1/search?q=pro&type=lead').set(tenant.live).expect(200);
    expect(pro.body.data.find((d: { id: string }) => d.id === results[4].id)?.data).toMatchObject({ customFields: { plan: 'pro' } });
    const events = await stack.db.query(`SELECT data->>'leadId' AS id FROM events WHERE tenant_id = $1 AND type = 'lead.created'`, [
      tenant.tenant.id,
    ]);
    expect(events.map((e: { id: string }) => e.id)).toEqual(expect.arrayContaining([results[0].id, results[4].id]));
  });

  it('gives its leads what a single create gives them: duplicate detection and lead_created campaigns', async () => {
    const campaign = await triggeredCampaign(stack.http, tenant.live, 'lead_created', 'Batch welcome');
    const existing = (await stack.http().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data;
    const res = await batch([validLead({ email: existing.email }), validLead()]).expect(200);
    const [twin, fresh] = res.body.data.map((r: { id: string }) => r.id);
    await stack.workflows.drain();

    await stack.client.workflow.getHandle(`lead-dedupe/${twin}`).result();
    const dupes = await stack.http().get(`/v1/leads/${existing.id}/duplicates`).set(tenant.live).expect(200);
    expect(dupes.body.data.map((d: { lead: { id: string }; reasons: string[] }) => [d.lead.id, d.reasons])).toEqual([[twin, ['email']]]);
    const [checked] = await stack.db.query('SELECT duplicates_checked_at FROM leads WHERE id = $1', [decodeId('lead', fresh)]);
    expect(checked.duplicates_checked_at).not.toBeNull(); // unique keys: checked when written, no workflow

    await autoEnrollmentsMade(stack.db, tenant.tenant.id);
    expect(await campaign.enrolledLeadIds()).toEqual(expect.arrayContaining([twin, fresh]));
    await campaign.complete();
  });

  it('writes a lead.created event per lead: delivered to a subscribed endpoint, not written when nobody subscribes', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const subscriber = await newTenant(stack.db);
      const hook = await stack
        .http()
        .post('/v1/integrations/webhooks')
        .set(subscriber.live)
        .send({ url: receiver.url('/batch'), events: ['lead.created'] })
        .expect(201);
      receiver.secrets.push(hook.body.data.secret);
      const leads = [validLead(), validLead(), validLead()];
      const res = await stack.http().post('/v1/leads/batch').set(subscriber.live).send({ leads }).expect(200);
      const got = await receiver.waitFor('/batch', 3);
      expect(got.map((r) => r.body.data.leadId).sort()).toEqual(res.body.data.map((r: { id: string }) => r.id).sort());

      const unsubscribed = await newTenant(stack.db);
      await batch([validLead(), validLead()], unsubscribed.live).expect(200);
      const rows = await stack.db.query(`SELECT id FROM events WHERE tenant_id = $1`, [unsubscribed.tenant.id]);
      expect(rows).toEqual([]);
    } finally {
      await receiver.stop();
    }
  });

  it('records the request in the audit log once', async () => {
    const t = await newTenant(stack.db);
    await stack
      .http()
      .post('/v1/leads/batch')
      .set(t.live)
      .send({ leads: [validLead(), validLead()] })
      .expect(200);
    const entries = await stack.db.query(`SELECT action, status_code FROM audit_logs WHERE tenant_id = $1`, [t.tenant.id]);
    expect(entries).toEqual([{ action: 'POST /v1/leads/batch', status_code: 200 }]);
  });

  it('gives items without a status the default of the moment, written once, when the default changed since the last batch', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const send = (leads: unknown[]) => stack.http().post('/v1/leads/batch').set(t.live).send({ leads }).expect(200);
    const statusOf = async (id: string) => (await stack.http().get(`/v1/leads/${id}`).set(t.live).expect(200)).body.data.status;
    const [first] = (await send([validLead()])).body.data;
    expect(await statusOf(first.id)).toBe('new');
    // This process now takes 'new' for the default without asking; the statement must notice it is not.
    await stack.http().post('/v1/config/statuses').set(t.live).send({ code: 'fresh', name: 'Fresh', isDefault: true }).expect(201);
    const second = (await send([validLead(), validLead({ status: 'contacted' })])).body.data;
    expect(second.map((r: { status: string }) => r.status)).toEqual(['created', 'created']);
    expect([await statusOf(second[0].id), await statusOf(second[1].id)]).toEqual(['fresh', 'contacted']);
    const [{ leads, events, audits }] = await stack.db.query(
      `SELECT (SELECT count(*)::int FROM leads WHERE tenant_id = $1) AS leads,
        (SELECT count(*)::int FROM events WHERE tenant_id = $1 AND type = 'lead.created') AS events,
        (SELECT count(*)::int FROM audit_logs WHERE tenant_id = $1 AND action = 'POST /v1/leads/batch') AS audits`,
      [t.tenant.id],
    );
    expect({ leads, events, audits }).toEqual({ leads: 3, events: 3, audits: 2 });
  });

  it('replays the same results for the same Idempotency-Key without creating the leads twice', async () => {
    const key = `batch-${Date.now()}`;
    const leads = [validLead(), validLead()];
    const first = await batch(leads, { 'Idempotency-Key': key }).expect(200);
    const again = await batch(leads, { 'Idempotency-Key': key }).expect(200);
    expect(again.body.data).toEqual(first.body.data);
    const [row] = await stack.db.query(`SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1 AND email = ANY($2)`, [
      tenant.tenant.id,
      leads.map((l) => l.email),
    ]);
    expect(row.n).toBe(2);
  });

  it('refuses an empty batch and one of more than 100 leads with a 422', async () => {
    await batch([]).expect(422);
    const tooMany = await batch(Array.from({ length: 101 }, () => validLead())).expect(422);
    expect(tooMany.body.errors[0].field).toBe('leads');
  });

  it("fails an item that names another tenant's user, and creates the rest", async () => {
    const other = await newTenant(stack.db);
    const res = await batch([validLead({ assignedTo: encodeId('user', other.user.id) }), validLead()]).expect(200);
    expect(res.body.data.map((r: { status: string }) => r.status)).toEqual(['error', 'created']);
    expect(res.body.data[0].errors).toEqual([{ field: 'assignedTo', message: 'User not found' }]);
  });

  it('fails an item holding a NUL character alone, naming its field, and creates the rest', async () => {
    const res = await batch([validLead({ customFields: { note: 'a\u0000b' } }), validLead()]).expect(200);
    expect(res.body.data.map((r: { status: string }) => r.status)).toEqual(['error', 'created']);
    expect(res.body.data[0].errors).toEqual([{ field: 'customFields.note', message: 'Must not contain the NUL character (U+0000)' }]);
  });
});

describe('PATCH /v1/leads/batch', () => {
  it('applies each change as PATCH /v1/leads/:id does, answering per item in request order; a refused change fails alone', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const other = await newTenant(stack.db);
    const create = async (body: Record<string, unknown>, who = t) =>
      (await stack.http().post('/v1/leads').set(who.live).send(validLead(body)).expect(201)).body.data;
    const ada = await create({ customFields: { tier: 'gold', region: 'EU' } });
    const grace = await create({ score: 10 });
    const alan = await create({});
    const foreign = await create({}, other);
    const missing = encodeId('lead', '999999999');
    const res = await stack
      .http()
      .patch('/v1/leads/batch')
      .set(t.live)
      .send({
        leads: [
          { id: ada.id, status: 'qualified', customFields: { tier: 'platinum', region: null } },
          { id: grace.id, status: 'qualifed' },
          { id: missing, score: 5 },
          { id: foreign.id, score: 5 },
          { id: ada.id, score: 99 },
          { id: alan.id, fristName: 'Alan' },
          { score: 3 },
          { id: grace.id, score: 'high' },
        ],
      })
      .expect(200);
    const notFound = [{ field: 'id', message: 'Lead not found' }];
    expect(res.body.data).toEqual([
      { index: 0, status: 'updated', id: ada.id },
      {
        index: 1,
        status: 'error',
        id: grace.id,
        errors: [{ field: 'status', message: expect.stringContaining('did you mean "qualified"?') }],
      },
      { index: 2, status: 'error', id: missing, errors: notFound },
      { index: 3, status: 'error', id: foreign.id, errors: notFound },
      {
        index: 4,
        status: 'error',
        errors: [{ field: 'id', message: 'Also item 0 of this batch; send one change per lead, with all its fields' }],
      },
      { index: 5, status: 'error', errors: [{ field: 'fristName', message: 'Unknown field; did you mean firstName?' }] },
      { index: 6, status: 'error', errors: [{ field: 'id', message: 'Required' }] },
      { index: 7, status: 'error', errors: [{ field: 'score', message: 'Must be a number, not a string' }] },
    ]);

    const get = async (id: string, who = t) => (await stack.http().get(`/v1/leads/${id}`).set(who.live).expect(200)).body.data;
    // The change applied as a PATCH applies it: custom fields as a merge patch, the rest as given.
    expect(await get(ada.id)).toMatchObject({ status: 'qualified', score: ada.score, customFields: { tier: 'platinum' } });
    expect((await get(ada.id)).customFields).not.toHaveProperty('region');
    expect(await get(grace.id)).toMatchObject({ status: grace.status, score: 10 });
    expect(await get(foreign.id, other)).toMatchObject({ score: foreign.score });
    const events = await stack.db.query(`SELECT data FROM events WHERE tenant_id = $1 AND type = 'lead.updated'`, [t.tenant.id]);
    expect(events.map((e: { data: unknown }) => e.data)).toEqual([
      expect.objectContaining({ leadId: ada.id, changes: { status: 'qualified', customFields: { tier: 'platinum', region: null } } }),
    ]);
    const audits = await stack.db.query(`SELECT action, status_code FROM audit_logs WHERE tenant_id = $1 AND action LIKE 'PATCH%'`, [
      t.tenant.id,
    ]);
    expect(audits).toEqual([{ action: 'PATCH /v1/leads/batch', status_code: 200 }]);
  });

  it('refuses an empty batch, one of more than 100 changes, and a body that is not one, with a 422', async () => {
    const send = (body: unknown) =>
      stack
        .http()
        .patch('/v1/leads/batch')
        .set(tenant.live)
        .send(body as object);
    expect((await send({ leads: [] }).expect(422)).body.errors).toEqual([{ field: 'leads', message: 'Must have at least 1 item' }]);
    const tooMany = await send({ leads: Array.from({ length: 101 }, () => ({ id: 'x' })) }).expect(422);
    expect(tooMany.body.errors).toEqual([{ field: 'leads', message: 'Must have at most 100 items' }]);
    expect((await send({ updates: [] }).expect(422)).body.errors).toEqual([
      { field: 'leads', message: 'Required' },
      { field: 'updates', message: expect.stringMatching(/^Unknown field/) },
    ]);
  });
});
