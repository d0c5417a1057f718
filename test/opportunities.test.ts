import { OutboxEvent } from '../db/entities';
import { decodeId, encodeId } from '../lib/ids';
import { historyToObject } from './support/history';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const newLead = async (headers = tenant.live) =>
  (
    await stack
      .http()
      .post('/v1/leads')
      .set(headers)
      .send(validLead({ status: 'contacted' }))
  ).body.data;
const convert = (body: Record<string, unknown>, headers = tenant.live) =>
  stack.http().post('/v1/opportunities/convert').set(headers).send(body);
const stages = async (headers = tenant.live) => {
  const res = await stack.http().get('/v1/config/statuses?entityType=opportunity&limit=100').set(headers);
  return Object.fromEntries(res.body.data.map((s: { code: string; id: string }) => [s.code, s.id])) as Record<string, string>;
};
const eventsFor = async (type: string, key: string, id: string) =>
  (await stack.db.getRepository(OutboxEvent).find({ where: { type }, order: { id: 'ASC' } })).filter(
    (e) => (e.data as Record<string, unknown>)[key] === id,
  );

describe('lead conversion (POST /v1/opportunities/convert, a Temporal workflow the API awaits)', () => {
  it('creates the opportunity in the default stage, updates the lead and writes both events', async () => {
    const lead = await newLead();
    const res = await convert({ leadId: lead.id, value: 25000, currency: 'eur' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      leadId: lead.id,
      value: 25000,
      currency: 'EUR',
      stage: 'qualified',
      probability: 10,
      isClosed: false,
    });
    expect(res.body.data.id).toMatch(/^opp/);
    const after = await stack.http().get(`/v1/leads/${lead.id}`).set(tenant.live);
    expect(after.body.data.status).toBe('qualified');
    const [created] = await eventsFor('opportunity.created', 'opportunityId', res.body.data.id);
    expect(created.data).toEqual({ opportunityId: res.body.data.id, value: 25000, stage: 'qualified' });
    const [updated] = await eventsFor('lead.updated', 'leadId', lead.id);
    expect(updated.data).toMatchObject({ leadId: lead.id, changes: { status: 'qualified', convertedAt: expect.any(String) } });
    const run = await stack.client.workflow.getHandle(`lead-conversion/${lead.id}`).describe();
    expect(run.status.name).toBe('COMPLETED');
    expect(run.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['LeadId', lead.id],
        ['TenantId', tenant.id],
      ]),
    );
    if (process.env.RECORD_HISTORIES) {
      const history = await stack.client.workflow.getHandle(`lead-conversion/${lead.id}`).fetchHistory();
      writeFileSync(path.join(__dirname, 'histories', 'lead-conversion.json'), JSON.stringify(historyToObject(history), null, 1));
    }
  });

  it('answers a second conversion of the same lead with 409 and the existing opportunity, without another workflow run', async () => {
    const lead = await newLead();
    const first = await convert({ leadId: lead.id });
    const run = async () => (await stack.client.workflow.getHandle(`lead-conversion/${lead.id}`).describe()).runId;
    const firstRun = await run();
    const second = await convert({ leadId: lead.id, value: 5 });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({ success: false, status: 409, data: { opportunityId: first.body.data.id } });
    expect(await run()).toBe(firstRun);
  });

  it('lets exactly one of two concurrent conversions win: one 201, one 409, one opportunity', async () => {
    const lead = await newLead();
    const [a, b] = await Promise.all([convert({ leadId: lead.id, value: 1 }), convert({ leadId: lead.id, value: 2 })]);
    expect([a.status, b.status].sort()).toEqual([201, 409]);
    const winner = a.status === 201 ? a : b;
    const loser = a.status === 201 ? b : a;
    expect(loser.body.data.opportunityId).toBe(winner.body.data.id);
    const list = await stack.http().get(`/v1/opportunities?leadId=${lead.id}`).set(tenant.live);
    expect(list.body.pagination.total).toBe(1);
  });

  it('answers an unknown lead with 404, a garbage leadId or unknown stage with 422', async () => {
    expect((await convert({ leadId: encodeId('lead', 987654321) })).status).toBe(404);
    const garbage = await convert({ leadId: 'nope' });
    expect([garbage.status, garbage.body.errors[0].field]).toEqual([422, 'leadId']);
    const lead = await newLead();
    const badStage = await convert({ leadId: lead.id, stageId: encodeId('status', 987654321) });
    expect([badStage.status, badStage.body.errors[0].field]).toEqual([422, 'stageId']);
    const otherEnv = await newLead(tenant.sandbox);
    expect((await convert({ leadId: otherEnv.id })).status).toBe(404);
  });

  it('uses the given stage', async () => {
    const ids = await stages();
    const lead = await newLead();
    const res = await convert({ leadId: lead.id, stageId: ids.proposal ?? Object.values(ids)[1] });
    expect(res.status).toBe(201);
    expect(res.body.data.stageId).toBe(ids.proposal ?? Object.values(ids)[1]);
  });
});

describe('opportunities', () => {
  it('moves through stages with stage_changed, then won; probability follows the stage unless set', async () => {
    const ids = await stages();
    const created = await stack.http().post('/v1/opportunities').set(tenant.live).send({ name: 'Big deal', value: 1000 });
    expect(created.status).toBe(201);
    const id = created.body.data.id;
    const moved = await stack.http().patch(`/v1/opportunities/${id}`).set(tenant.live).send({ stageId: ids.won });
    expect(moved.body.data).toMatchObject({ stage: 'won', isClosed: true, isWon: true, probability: 100, closedAt: expect.any(String) });
    expect((await eventsFor('opportunity.stage_changed', 'opportunityId', id))[0].data).toEqual({
      opportunityId: id,
      from: 'qualified',
      to: 'won',
    });
    expect((await eventsFor('opportunity.won', 'opportunityId', id))[0].data).toEqual({ opportunityId: id, value: 1000 });
    const pinned = await stack.http().patch(`/v1/opportunities/${id}`).set(tenant.live).send({ probability: 42, stageId: ids.qualified });
    expect(pinned.body.data).toMatchObject({ probability: 42, isClosed: false, closedAt: null });
    const released = await stack.http().patch(`/v1/opportunities/${id}`).set(tenant.live).send({ probability: null });
    expect(released.body.data.probability).toBe(10);
  });

  it('records the reason when a deal is lost', async () => {
    const ids = await stages();
    const id = (await stack.http().post('/v1/opportunities').set(tenant.live).send({ name: 'Lost deal', value: 10 })).body.data.id;
    const lost = await stack
      .http()
      .patch(`/v1/opportunities/${id}`)
      .set(tenant.live)
      .send({ stageId: ids.lost, lostReason: 'Chose a competitor' });
    expect(lost.body.data).toMatchObject({ isClosed: true, isWon: false, lostReason: 'Chose a competitor', probability: 0 });
    expect((await eventsFor('opportunity.lost', 'opportunityId', id))[0].data).toEqual({ opportunityId: id, reason: 'Chose a competitor' });
  });

  it('validates input and filters lists', async () => {
    const bad = await stack
      .http()
      .post('/v1/opportunities')
      .set(tenant.live)
      .send({ name: '', value: -1, currency: 'euro', leadId: encodeId('lead', 99999999) });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['currency', 'name', 'value']);
    const t = await newTenant(stack.db);
    for (const value of [100, 200, 300])
      await stack
        .http()
        .post('/v1/opportunities')
        .set(t.live)
        .send({ name: `D${value}`, value });
    const res = await stack.http().get('/v1/opportunities?valueMin=150&sort=value:desc&limit=1').set(t.live);
    expect(res.body.data.map((o: { value: number }) => o.value)).toEqual([300]);
    expect(res.body.pagination).toMatchObject({ total: 2, totalPages: 2, hasNext: true });
    expect(decodeId('opportunity', res.body.data[0].id)).not.toBeNull();
  });

  it('earns the referring partner a commission at the tier rate when the deal is won', async () => {
    const ids = await stages();
    const partner = (
      await stack
        .http()
        .post('/v1/partners')
        .set(tenant.live)
        .send({ email: `p-${Date.now()}@example.com`, firstName: 'Pat', lastName: 'Ner', tier: 'gold' })
    ).body.data;
    await stack.http().post(`/v1/partners/${partner.id}/approve`).set(tenant.live);
    const code = (await stack.http().get(`/v1/partners/${partner.id}/referral-codes`).set(tenant.live)).body.data[0].code;
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ referralCode: code }))
    ).body.data;
    const opp = (await convert({ leadId: lead.id, value: 20000 })).body.data;
    await stack.http().patch(`/v1/opportunities/${opp.id}`).set(tenant.live).send({ stageId: ids.won });
    const [earned] = (await stack.db.getRepository(OutboxEvent).find({ where: { type: 'commission.earned' } })).filter(
      (e) => (e.data as { partnerId: string }).partnerId === partner.id,
    );
    expect(earned.data).toMatchObject({ partnerId: partner.id, amount: 2000 });
    const list = await stack.http().get(`/v1/commissions?partnerId=${partner.id}`).set(tenant.live);
    expect(list.body.data).toHaveLength(1);
  });
});
