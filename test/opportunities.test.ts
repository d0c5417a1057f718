import { OutboxEvent } from '../db/entities';
import { decodeId, encodeId } from '../lib/ids';
import { outboxOf } from './support/events';
import { historyToObject } from './support/history';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { writeFileSync } from 'node:fs';
import path from 'node:path';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
  await stack.subscribe(tenant);
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
    // Three letters are not enough: the code must be one of ISO 4217's; lower case is taken as upper.
    const made = await stack.http().post('/v1/opportunities').set(tenant.live).send({ name: 'Fake money', value: 1, currency: 'XYZ' });
    expect(made.body.errors).toEqual([{ field: 'currency', message: 'Not an ISO 4217 currency code (e.g. USD, EUR, GBP)' }]);
    const lower = await stack
      .http()
      .post('/v1/opportunities')
      .set(tenant.live)
      .send({ name: 'Euros', value: 1, currency: 'eur' })
      .expect(201);
    expect(lower.body.data.currency).toBe('EUR');
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

  /** A gold partner (10 %), approved, whose referral code brought the lead of a new deal worth `value`. */
  const referredDeal = async (headers: Record<string, string>, value: number, convertWith: Record<string, unknown> = {}) => {
    const partner = (
      await stack
        .http()
        .post('/v1/partners')
        .set(headers)
        .send({ email: `p-${Date.now()}@example.com`, firstName: 'Pat', lastName: 'Ner', tier: 'gold' })
    ).body.data;
    await stack.http().post(`/v1/partners/${partner.id}/approve`).set(headers);
    const lead = await leadReferredBy(headers, partner.id);
    const opp = (await convert({ leadId: lead.id, value, ...convertWith }, headers)).body.data;
    return { partner, lead, opp };
  };

  /** A new lead the partner's first referral code brought in. */
  const leadReferredBy = async (headers: Record<string, string>, partnerId: string) => {
    const code = (await stack.http().get(`/v1/partners/${partnerId}/referral-codes`).set(headers)).body.data[0].code;
    return (
      await stack
        .http()
        .post('/v1/leads')
        .set(headers)
        .send(validLead({ referralCode: code }))
        .expect(201)
    ).body.data;
  };

  it('earns the referring partner a commission at the tier rate when the deal is won', async () => {
    const ids = await stages();
    const { partner, opp } = await referredDeal(tenant.live, 20000);
    await stack.http().patch(`/v1/opportunities/${opp.id}`).set(tenant.live).send({ stageId: ids.won });
    const [earned] = await eventsFor('commission.earned', 'partnerId', partner.id);
    expect(earned.data).toMatchObject({ partnerId: partner.id, amount: 2000 });
    const list = await stack.http().get(`/v1/commissions?partnerId=${partner.id}`).set(tenant.live);
    expect(list.body.data).toHaveLength(1);
  });

  it('pays the partner for a deal converted or created straight into the won stage, as for one moved there', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const ids = await stages(t.live);
    const converted = await referredDeal(t.live, 1000, { stageId: ids.won });
    expect(converted.opp).toMatchObject({ stage: 'won', isWon: true });
    const other = await referredDeal(t.live, 3000);
    const lead = await leadReferredBy(t.live, other.partner.id);
    const created = (
      await stack
        .http()
        .post('/v1/opportunities')
        .set(t.live)
        .send({ name: 'Synced win', value: 2000, leadId: lead.id, stageId: ids.won })
        .expect(201)
    ).body.data;
    const lost = (
      await stack.http().post('/v1/opportunities').set(t.live).send({ name: 'Synced loss', value: 5, stageId: ids.lost }).expect(201)
    ).body.data;

    const events = (await outboxOf(stack.db, t, 'live', ['opportunity.won', 'opportunity.lost', 'commission.earned'])).map((e) =>
      e.type === 'commission.earned' ? `earned ${e.data.amount}` : `${e.type} ${e.data.opportunityId}`,
    );
    expect(events).toEqual([
      `opportunity.won ${converted.opp.id}`,
      'earned 100',
      `opportunity.won ${created.id}`,
      'earned 200',
      `opportunity.lost ${lost.id}`,
    ]);
  });

  it('reverses an unpaid commission when its deal is reopened, lost, restated or deleted; a paid one stays paid', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const ids = await stages(t.live);
    const { partner, opp } = await referredDeal(t.live, 20000);
    const patch = (body: Record<string, unknown>) => stack.http().patch(`/v1/opportunities/${opp.id}`).set(t.live).send(body).expect(200);
    const commission = async () => (await stack.http().get(`/v1/commissions?partnerId=${partner.id}`).set(t.live)).body.data;

    await patch({ stageId: ids.won });
    const [{ id }] = await commission();
    await patch({ stageId: ids.negotiation });
    expect(await commission()).toEqual([expect.objectContaining({ id, status: 'reversed', amount: 2000 })]);
    const payReversed = await stack.http().post(`/v1/commissions/${id}/pay`).set(t.live);
    expect(payReversed.status).toBe(409);
    expect(payReversed.body.message).toBe('Cannot pay a commission that is reversed (only one that is earned)');

    await patch({ stageId: ids.won, value: 30000 }); // won again: the same commission, earned at the new value
    expect(await commission()).toEqual([expect.objectContaining({ id, status: 'earned', amount: 3000 })]);
    await patch({ value: 25000 }); // a won deal's new value restates it
    expect(await commission()).toEqual([expect.objectContaining({ id, status: 'earned', amount: 2500 })]);
    await patch({ stageId: ids.lost, lostReason: 'Budget cut' });
    expect((await commission())[0].status).toBe('reversed');
    await patch({ stageId: ids.won });
    await stack.http().delete(`/v1/opportunities/${opp.id}`).set(t.live).expect(200);
    expect((await commission())[0].status).toBe('reversed');

    const reasons = (await outboxOf(stack.db, t, 'live', ['commission.earned', 'commission.reversed'])).map((e) =>
      e.type === 'commission.reversed' ? `reversed ${e.data.amount} ${e.data.reason}` : `earned ${e.data.amount}`,
    );
    expect(reasons).toEqual([
      'earned 2000',
      'reversed 2000 deal_reopened',
      'earned 3000',
      'reversed 3000 deal_value_changed',
      'earned 2500',
      'reversed 2500 deal_lost',
      'earned 2500',
      'reversed 2500 deal_deleted',
    ]);
    const [reversed] = await eventsFor('commission.reversed', 'commissionId', id);
    expect(reversed.data).toEqual({
      commissionId: id,
      amount: 2000,
      partnerId: partner.id,
      opportunityId: opp.id,
      reason: 'deal_reopened',
    });

    // Paid, the commission stays paid whatever happens to the deal.
    const second = await referredDeal(t.live, 10000);
    await stack.http().patch(`/v1/opportunities/${second.opp.id}`).set(t.live).send({ stageId: ids.won }).expect(200);
    const [paid] = (await stack.http().get(`/v1/commissions?partnerId=${second.partner.id}`).set(t.live)).body.data;
    await stack.http().post(`/v1/commissions/${paid.id}/pay`).set(t.live).expect(200);
    await stack.http().patch(`/v1/opportunities/${second.opp.id}`).set(t.live).send({ stageId: ids.lost }).expect(200);
    expect((await stack.http().get(`/v1/commissions/${paid.id}`).set(t.live)).body.data).toMatchObject({ status: 'paid', amount: 1000 });
  });

  it('restates a commission for the partner who earned it, after a merge moved the deal or its lead was deleted', async () => {
    const t = await newTenant(stack.db);
    const ids = await stages(t.live);
    const commissionsOf = async (partnerId: string) =>
      (await stack.http().get(`/v1/commissions?partnerId=${partnerId}`).set(t.live)).body.data;
    const earner = await referredDeal(t.live, 1000);
    await stack.http().patch(`/v1/opportunities/${earner.opp.id}`).set(t.live).send({ stageId: ids.won }).expect(200);
    const [{ id }] = await commissionsOf(earner.partner.id);

    // The survivor came through another partner; the merge moves the won deal to it.
    const survivor = (await referredDeal(t.live, 1)).partner;
    const other = await leadReferredBy(t.live, survivor.id);
    await stack.http().post(`/v1/leads/${other.id}/merge`).set(t.live).send({ duplicateId: earner.lead.id }).expect(200);
    await stack.http().patch(`/v1/opportunities/${earner.opp.id}`).set(t.live).send({ value: 1200 }).expect(200);
    expect(await commissionsOf(earner.partner.id)).toEqual([expect.objectContaining({ id, status: 'earned', amount: 120 })]);
    expect(await commissionsOf(survivor.id)).toEqual([]);

    // The deal's lead is deleted: a new value still restates the commission instead of ending it.
    await stack.http().delete(`/v1/leads/${other.id}`).set(t.live).expect(200);
    await stack.http().patch(`/v1/opportunities/${earner.opp.id}`).set(t.live).send({ value: 1500 }).expect(200);
    expect(await commissionsOf(earner.partner.id)).toEqual([expect.objectContaining({ id, status: 'earned', amount: 150 })]);
    // The deal keeps the deleted lead's ID as where it came from, and is still found by it.
    const byLead = await stack.http().get(`/v1/opportunities?leadId=${other.id}`).set(t.live).expect(200);
    expect(byLead.body.data).toEqual([expect.objectContaining({ id: earner.opp.id, leadId: other.id })]);
    await stack.http().get(`/v1/leads/${other.id}`).set(t.live).expect(404);
  });
});
