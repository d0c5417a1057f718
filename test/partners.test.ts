import { outboxOf } from './support/events';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const validPartner = (overrides: Record<string, unknown> = {}) => ({
  email: `partner-${Math.random().toString(36).slice(2)}@example.com`,
  firstName: 'Charles',
  lastName: 'Babbage',
  company: 'Difference Engines Ltd',
  ...overrides,
});
const register = (t: TestTenant, body: Record<string, unknown> = {}) =>
  stack.http().post('/v1/partners').set(t.sandbox).send(validPartner(body));
const act = (t: TestTenant, id: string, action: string) => stack.http().post(`/v1/partners/${id}/${action}`).set(t.sandbox);
async function approvedPartner(t: TestTenant, body: Record<string, unknown> = {}) {
  const partner = (await register(t, body)).body.data;
  await act(t, partner.id, 'approve');
  const codes = await stack.http().get(`/v1/partners/${partner.id}/referral-codes`).set(t.sandbox);
  return { partner, code: codes.body.data[0].code as string };
}

describe('partners', () => {
  it('registers a pending bronze partner and emits partner.registered', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const res = await register(t);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      status: 'pending',
      tier: 'bronze',
      parentId: null,
      approvedAt: null,
      company: 'Difference Engines Ltd',
    });
    expect(res.body.data.id).toMatch(/^par/);
    expect(await outboxOf(stack.db, t, 'sandbox')).toEqual([
      { type: 'partner.registered', data: { partnerId: res.body.data.id, company: 'Difference Engines Ltd' } },
    ]);
  });

  it('keeps one partner per address, in any case, on registration and on update', async () => {
    const t = await newTenant(stack.db);
    const first = (await register(t, { email: 'cb@engines.example' })).body.data;
    const taken = { status: 409, field: 'email', message: 'A partner with this email already exists' };
    const answer = (res: { status: number; body: { message: string; errors: { field: string }[] } }) => ({
      status: res.status,
      field: res.body.errors?.[0]?.field,
      message: res.body.message,
    });
    // Two registrations of one address at once: one gets it.
    const [a, b] = await Promise.all([register(t, { email: 'CB@Engines.example' }), register(t, { email: 'ada@engines.example' })]);
    expect(answer(a)).toEqual(taken);
    expect(b.status).toBe(201);
    const concurrent = await Promise.all([register(t, { email: 'x@engines.example' }), register(t, { email: 'X@engines.example' })]);
    expect(concurrent.map((r) => r.status).sort()).toEqual([201, 409]);
    expect(answer(await stack.http().patch(`/v1/partners/${b.body.data.id}`).set(t.sandbox).send({ email: 'cb@engines.example' }))).toEqual(
      taken,
    );
    // Its own address, in another case, is no conflict; another tenant's partners are not counted.
    await stack.http().patch(`/v1/partners/${first.id}`).set(t.sandbox).send({ email: 'Cb@engines.example' }).expect(200);
    expect((await register(await newTenant(stack.db), { email: 'cb@engines.example' })).status).toBe(201);
  });

  it('validates the body with 422 field errors', async () => {
    const t = await newTenant(stack.db);
    const res = await stack
      .http()
      .post('/v1/partners')
      .set(t.sandbox)
      .send({ email: 'nope', tier: 'diamond', referralCode: 'x y', extra: 1 });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { field: string }) => e.field).sort()).toEqual([
      'email',
      'extra',
      'firstName',
      'lastName',
      'referralCode',
      'tier',
    ]);
    const unknownCode = await register(t, { referralCode: 'NOSUCHCODE' });
    expect(unknownCode.body.errors).toEqual([{ field: 'referralCode', message: 'Referral code not found' }]);
  });

  it('moves pending -> approved -> suspended -> approved; other moves are 409', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const p = (await register(t)).body.data;
    expect((await act(t, p.id, 'suspend')).status).toBe(409);
    expect((await act(t, p.id, 'reactivate')).status).toBe(409);
    const approved = await act(t, p.id, 'approve');
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe('approved');
    expect(approved.body.data.approvedAt).not.toBeNull();
    const again = await act(t, p.id, 'approve');
    expect([again.status, again.body.message]).toEqual([409, 'Cannot approve a partner that is approved (only one that is pending)']);
    expect((await act(t, p.id, 'reject')).status).toBe(409);
    expect((await act(t, p.id, 'suspend')).body.data.status).toBe('suspended');
    expect((await act(t, p.id, 'reactivate')).body.data.status).toBe('approved');

    const rejected = (await register(t)).body.data;
    expect((await act(t, rejected.id, 'reject')).body.data.status).toBe('rejected');
    expect((await act(t, rejected.id, 'approve')).status).toBe(409);

    const approvals = await outboxOf(stack.db, t, 'sandbox', ['partner.approved']);
    expect(approvals).toEqual([{ type: 'partner.approved', data: { partnerId: p.id } }]);
  });

  it('issues a URL-safe referral code on approval and more on request; only approved partners get codes', async () => {
    const t = await newTenant(stack.db);
    const pending = (await register(t)).body.data;
    const early = await stack.http().post(`/v1/partners/${pending.id}/referral-codes`).set(t.sandbox);
    expect([early.status, early.body.message]).toEqual([
      409,
      'Cannot issue a referral code to a partner that is pending: approve the partner first (POST /v1/partners/{id}/approve)',
    ]);
    const { partner, code } = await approvedPartner(t);
    expect(code).toMatch(/^[A-Za-z0-9_-]{10}$/);
    const more = await stack.http().post(`/v1/partners/${partner.id}/referral-codes`).set(t.sandbox);
    expect(more.status).toBe(201);
    expect(more.body.data).toMatchObject({ partnerId: partner.id });
    const list = await stack.http().get(`/v1/partners/${partner.id}/referral-codes`).set(t.sandbox);
    expect(list.body.data.map((c: { code: string }) => c.code)).toEqual([code, more.body.data.code]);
  });

  it('builds the upline from referral codes and lists the downline with depth', async () => {
    const t = await newTenant(stack.db);
    const top = await approvedPartner(t, { lastName: 'Top' });
    const child = await approvedPartner(t, { lastName: 'Child', referralCode: top.code });
    expect(child.partner.parentId).toBe(top.partner.id);
    const grandchild = (await register(t, { lastName: 'Grandchild', referralCode: child.code.toLowerCase() })).body.data;
    expect(grandchild.parentId).toBe(child.partner.id);
    const downline = await stack.http().get(`/v1/partners/${top.partner.id}/downline`).set(t.sandbox);
    expect(downline.status).toBe(200);
    expect(downline.body.data.map((p: { lastName: string; depth: number }) => [p.lastName, p.depth])).toEqual([
      ['Child', 1],
      ['Grandchild', 2],
    ]);
    await act(t, top.partner.id, 'suspend');
    const refused = await register(t, { referralCode: top.code });
    expect(refused.body.errors).toEqual([{ field: 'referralCode', message: 'Referral code is not active' }]);
  });

  it('lists with filters and pagination, and updates fields (not status)', async () => {
    const t = await newTenant(stack.db);
    for (const tier of ['gold', 'gold', 'silver']) await register(t, { tier, company: `${tier} co` });
    const gold = await stack.http().get('/v1/partners?tier=gold&limit=1&page=2').set(t.sandbox);
    expect(gold.body.pagination).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2, hasNext: false, hasPrev: true });
    const q = await stack.http().get('/v1/partners?q=silver').set(t.sandbox);
    expect(q.body.data).toHaveLength(1);
    const patched = await stack
      .http()
      .patch(`/v1/partners/${q.body.data[0].id}`)
      .set(t.sandbox)
      .send({ tier: 'platinum', phone: '+1 555 0100' });
    expect(patched.body.data).toMatchObject({ tier: 'platinum', phone: '+1 555 0100' });
    expect((await stack.http().patch(`/v1/partners/${q.body.data[0].id}`).set(t.sandbox).send({ status: 'approved' })).status).toBe(422);
    const other = await newTenant(stack.db);
    expect((await stack.http().get(`/v1/partners/${q.body.data[0].id}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/partners/${q.body.data[0].id}`).set(t.live)).status).toBe(404);
  });

  it('attributes a lead created with a referral code to the partner', async () => {
    const t = await newTenant(stack.db);
    const { partner, code } = await approvedPartner(t);
    const lead = await stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(validLead({ referralCode: code }));
    expect(lead.status).toBe(201);
    expect(lead.body.data).toMatchObject({ partnerId: partner.id, source: 'referral' });
    const plain = await stack.http().post('/v1/leads').set(t.sandbox).send(validLead());
    expect(plain.body.data.partnerId).toBeNull();
    const bad = await stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(validLead({ referralCode: 'UNKNOWN123' }));
    expect(bad.body.errors).toEqual([{ field: 'referralCode', message: 'Referral code not found' }]);
    // a sandbox code means nothing live
    const live = await stack
      .http()
      .post('/v1/leads')
      .set(t.live)
      .send(validLead({ referralCode: code }));
    expect(live.status).toBe(422);
  });
});
