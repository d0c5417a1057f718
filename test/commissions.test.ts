import { Lead } from '../db/entities';
import { earnCommissionForWonDeal } from '../domain/commissions';
import { unitOfWork } from '../domain/unit-of-work';
import type { TenantScope } from '../db/scoped-repository';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { decodeId, encodeId } from '../lib/ids';
import { outboxOf } from './support/events';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** What the unit of work needs to run and relay outside a request. */
const workContext = (scope: TenantScope) => ({ db: stack.db, scope, workflows: new WorkflowStarter(stack.client, stack.taskQueue) });

async function approvedPartner(t: TestTenant, tier: string) {
  const partner = (
    await stack
      .http()
      .post('/v1/partners')
      .set(t.sandbox)
      .send({ email: `p-${Math.random()}@example.com`, firstName: 'P', lastName: 'Q', tier })
  ).body.data;
  await stack.http().post(`/v1/partners/${partner.id}/approve`).set(t.sandbox);
  const code = (await stack.http().get(`/v1/partners/${partner.id}/referral-codes`).set(t.sandbox)).body.data[0].code as string;
  return { partner, code };
}
/** A lead the partner with this referral code brought in. */
const referredLead = async (t: TestTenant, code: string) =>
  (
    await stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(validLead({ referralCode: code }))
  ).body.data;
const record = (t: TestTenant, body: Record<string, unknown>) => stack.http().post('/v1/commissions').set(t.sandbox).send(body);

describe('commissions', () => {
  it('records a manual commission, pays it once, and emits earned then paid', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const { partner } = await approvedPartner(t, 'bronze');
    const res = await record(t, { partnerId: partner.id, amount: 120.5, currency: 'EUR', note: 'Q1 bonus' });
    expect(res.status).toBe(201);
    const c = res.body.data;
    expect(c).toMatchObject({
      partnerId: partner.id,
      amount: 120.5,
      currency: 'EUR',
      status: 'earned',
      rate: null,
      paidAt: null,
      note: 'Q1 bonus',
    });
    expect(c.id).toMatch(/^com/);
    // The action takes no body: an amount sent with it is refused, not dropped while all is paid.
    const partial = await stack.http().post(`/v1/commissions/${c.id}/pay`).set(t.sandbox).send({ amount: 5 });
    expect([partial.status, partial.body.errors]).toEqual([
      422,
      [{ field: 'amount', message: 'Unknown field; this endpoint takes no request body' }],
    ]);
    expect((await stack.http().get(`/v1/commissions/${c.id}`).set(t.sandbox)).body.data.status).toBe('earned');
    const paid = await stack.http().post(`/v1/commissions/${c.id}/pay`).set(t.sandbox).send({});
    expect([paid.status, paid.body.data.status]).toEqual([200, 'paid']);
    const again = await stack.http().post(`/v1/commissions/${c.id}/pay`).set(t.sandbox);
    expect([again.status, again.body.message]).toEqual([409, 'Cannot pay a commission that is paid (only one that is earned)']);
    expect(await outboxOf(stack.db, t, 'sandbox', ['commission.earned', 'commission.paid'])).toEqual([
      { type: 'commission.earned', data: { commissionId: c.id, amount: 120.5, partnerId: partner.id } },
      { type: 'commission.paid', data: { commissionId: c.id, amount: 120.5 } },
    ]);
  });

  it('validates amount, currency and partner', async () => {
    const t = await newTenant(stack.db);
    const res = await record(t, { partnerId: encodeId('lead', 1), amount: 0, currency: 'euro' });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['amount', 'currency', 'partnerId']);
    expect((await record(t, { partnerId: encodeId('partner', 999999999), amount: 1.234, currency: 'USD' })).body.errors).toEqual([
      { field: 'amount', message: 'At most two decimal places' },
    ]);
    // Cents as clients compute them in floating point (57 * 0.01), and near the top of the range.
    for (const amount of [0.5700000000000001, 669792285802.68]) {
      expect((await record(t, { partnerId: encodeId('partner', 999999999), amount, currency: 'USD' })).body.errors).toEqual([
        { field: 'partnerId', message: 'Partner not found' },
      ]);
    }
    expect((await record(t, { partnerId: encodeId('partner', 999999999), amount: 1e12, currency: 'USD' })).body.errors[0].field).toBe(
      'amount',
    );
    expect((await record(t, { partnerId: encodeId('partner', 999999999), amount: 10, currency: 'USD' })).body.errors).toEqual([
      { field: 'partnerId', message: 'Partner not found' },
    ]);
    const pending = (
      await stack.http().post('/v1/partners').set(t.sandbox).send({ email: 'pending@example.com', firstName: 'P', lastName: 'Q' })
    ).body.data;
    expect((await record(t, { partnerId: pending.id, amount: 10, currency: 'USD' })).body.errors).toEqual([
      { field: 'partnerId', message: 'Partner is pending; only an approved partner earns commissions (approve it first)' },
    ]);
  });

  it('lists with partner and status filters and pagination', async () => {
    const t = await newTenant(stack.db);
    const a = await approvedPartner(t, 'gold');
    const b = await approvedPartner(t, 'gold');
    const ids = [];
    for (const amount of [10, 20, 30]) ids.push((await record(t, { partnerId: a.partner.id, amount, currency: 'USD' })).body.data.id);
    await record(t, { partnerId: b.partner.id, amount: 99, currency: 'USD' });
    await stack.http().post(`/v1/commissions/${ids[0]}/pay`).set(t.sandbox);
    const list = (q: string) => stack.http().get(`/v1/commissions?${q}`).set(t.sandbox);
    const forA = await list(`partnerId=${a.partner.id}&limit=2`);
    expect(forA.body.pagination).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2, hasNext: true, hasPrev: false });
    expect(forA.body.data.map((c: { amount: number }) => c.amount)).toEqual([30, 20]);
    expect((await list('status=paid')).body.data.map((c: { id: string }) => c.id)).toEqual([ids[0]]);
    expect((await list('status=earned')).body.pagination.total).toBe(3);
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/commissions/${ids[1]}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/commissions/${ids[1]}`).set(t.sandbox)).body.data.amount).toBe(20);
  });

  it('pays a partner its tier rate for a won deal on a lead it referred, once per opportunity', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const { partner, code } = await approvedPartner(t, 'silver');
    const lead = await referredLead(t, code);
    const scope = { tenantId: t.tenant.id, environment: 'sandbox' as const };
    const deal = { leadId: decodeId('lead', lead.id) as string, opportunityId: '424242', value: 10_000 };
    const first = await unitOfWork(workContext(scope), (tx) => earnCommissionForWonDeal(tx, deal));
    expect(first?.commission).toMatchObject({ amount: 750, rate: 0.075, partnerId: decodeId('partner', partner.id), status: 'earned' });
    const second = await unitOfWork(workContext(scope), (tx) => earnCommissionForWonDeal(tx, deal));
    expect(second?.commission.id).toBe(first?.commission.id);
    expect(second?.event).toBeNull();
    const commissionId = encodeId('commission', first!.commission.id);
    expect(await outboxOf(stack.db, t, 'sandbox', ['commission.earned'])).toEqual([
      { type: 'commission.earned', data: { commissionId, amount: 750, partnerId: partner.id } },
    ]);
    const api = await stack.http().get(`/v1/commissions/${commissionId}`).set(t.sandbox);
    expect(api.body.data).toMatchObject({ rate: 0.075, leadId: lead.id, opportunityId: encodeId('opportunity', '424242') });
  });

  it('owes nothing for a lead without a partner, or whose partner is suspended', async () => {
    const t = await newTenant(stack.db);
    const scope = { tenantId: t.tenant.id, environment: 'sandbox' as const };
    const plain = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead())).body.data;
    const leadId = decodeId('lead', plain.id) as string;
    expect(
      await unitOfWork(workContext(scope), (tx) => earnCommissionForWonDeal(tx, { leadId, opportunityId: '1', value: 500 })),
    ).toBeNull();
    const { partner, code } = await approvedPartner(t, 'platinum');
    const referred = await referredLead(t, code);
    await stack.http().post(`/v1/partners/${partner.id}/suspend`).set(t.sandbox);
    const referredId = decodeId('lead', referred.id) as string;
    expect(
      await unitOfWork(workContext(scope), (tx) => earnCommissionForWonDeal(tx, { leadId: referredId, opportunityId: '2', value: 500 })),
    ).toBeNull();
    const lead = await stack.db.getRepository(Lead).findOneByOrFail({ id: referredId });
    expect(lead.partnerId).toBe(decodeId('partner', partner.id));
  });
});
