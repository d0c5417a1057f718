import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { contactedLead } from './support/status-definitions';

let stack: TestStack;

beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

interface Def {
  id: string;
  code: string;
  isDefault: boolean;
  entityType: string;
  isClosed: boolean;
  isWon: boolean;
  defaultProbability: number | null;
}
const list = async (t: TestTenant, entityType: string) =>
  (await stack.http().get(`/v1/config/statuses?entityType=${entityType}&limit=100`).set(t.sandbox)).body.data as Def[];

describe('status and stage definitions (/v1/config/statuses)', () => {
  it('seeds the default lead statuses and opportunity stages on first access', async () => {
    const t = await newTenant(stack.db);
    const leads = await list(t, 'lead');
    expect(leads.map((s) => s.code)).toEqual(['new', 'contacted', 'qualified', 'unqualified']);
    expect(leads.filter((s) => s.isDefault).map((s) => s.code)).toEqual(['new']);
    const stages = await list(t, 'opportunity');
    expect(stages.map((s) => [s.code, s.isDefault, s.isClosed, s.isWon, s.defaultProbability])).toEqual([
      ['qualified', true, false, false, 10],
      ['proposal', false, false, false, 40],
      ['negotiation', false, false, false, 70],
      ['won', false, true, true, 100],
      ['lost', false, true, false, 0],
    ]);
  });

  it('moves the default when a new default is created, in the same entity type only', async () => {
    const t = await newTenant(stack.db);
    const res = await stack.http().post('/v1/config/statuses').set(t.sandbox).send({ code: 'fresh', name: 'Fresh', isDefault: true });
    expect(res.status).toBe(201);
    expect((await list(t, 'lead')).filter((s) => s.isDefault).map((s) => s.code)).toEqual(['fresh']);
    expect((await list(t, 'opportunity')).filter((s) => s.isDefault).map((s) => s.code)).toEqual(['qualified']);
  });

  it('keeps exactly one default per entity type under concurrent updates', async () => {
    const t = await newTenant(stack.db);
    const leads = await list(t, 'lead');
    const results = await Promise.all(
      [...leads, ...leads].map((s) => stack.http().patch(`/v1/config/statuses/${s.id}`).set(t.sandbox).send({ isDefault: true })),
    );
    expect(results.map((r) => r.status).every((s) => s === 200)).toBe(true);
    expect((await list(t, 'lead')).filter((s) => s.isDefault)).toHaveLength(1);
  });

  it('answers 409 for a duplicate code in the same entity type, and allows it in the other', async () => {
    const t = await newTenant(stack.db);
    const dup = await stack.http().post('/v1/config/statuses').set(t.sandbox).send({ code: 'contacted', name: 'Again' });
    expect(dup.status).toBe(409);
    expect(dup.body.errors).toEqual([{ field: 'code', message: 'Already in use' }]);
    const asStage = await stack
      .http()
      .post('/v1/config/statuses')
      .set(t.sandbox)
      .send({ code: 'contacted', name: 'Contacted', entityType: 'opportunity', defaultProbability: 5 });
    expect(asStage.status).toBe(201);
    const renamed = await stack.http().patch(`/v1/config/statuses/${asStage.body.data.id}`).set(t.sandbox).send({ code: 'won' });
    expect(renamed.status).toBe(409);
  });

  it('refuses stage-only flags on lead statuses and a won stage that is not closed', async () => {
    const t = await newTenant(stack.db);
    const lead = await stack
      .http()
      .post('/v1/config/statuses')
      .set(t.sandbox)
      .send({ code: 'x', name: 'X', isWon: true, defaultProbability: 3 });
    expect(lead.status).toBe(422);
    expect(lead.body.errors.map((e: { field: string }) => e.field).sort()).toEqual(['defaultProbability', 'isWon']);
    const stage = await stack
      .http()
      .post('/v1/config/statuses')
      .set(t.sandbox)
      .send({ code: 'y', name: 'Y', entityType: 'opportunity', isWon: true });
    expect(stage.status).toBe(422);
    expect(stage.body.errors).toEqual([{ field: 'isWon', message: 'A won stage must also be closed' }]);
  });

  it('refuses to delete or unset the default (there is always exactly one)', async () => {
    const t = await newTenant(stack.db);
    const def = (await list(t, 'lead')).find((s) => s.isDefault)!;
    expect((await stack.http().delete(`/v1/config/statuses/${def.id}`).set(t.sandbox)).status).toBe(409);
    expect((await stack.http().patch(`/v1/config/statuses/${def.id}`).set(t.sandbox).send({ isDefault: false })).status).toBe(409);
    const other = (await list(t, 'lead')).find((s) => !s.isDefault)!;
    expect((await stack.http().delete(`/v1/config/statuses/${other.id}`).set(t.sandbox)).status).toBe(200);
    expect((await list(t, 'lead')).map((s) => s.code)).not.toContain(other.code);
  });

  it('keeps a status leads have, or a stage deals are in: no delete, no new code, until they are moved', async () => {
    const t = await newTenant(stack.db);
    const contacted = (await list(t, 'lead')).find((s) => s.code === 'contacted')!;
    const lead = await contactedLead(stack, t);
    const refused = await stack.http().delete(`/v1/config/statuses/${contacted.id}`).set(t.sandbox);
    expect([refused.status, refused.body.message]).toEqual([
      409,
      '1 lead has this status. It cannot be deleted until they are moved (PATCH /v1/leads/{id} with another status).',
    ]);
    const recode = await stack.http().patch(`/v1/config/statuses/${contacted.id}`).set(t.sandbox).send({ code: 'reached' });
    expect([recode.status, recode.body.message]).toEqual([
      409,
      '1 lead has this status. Its code cannot change until they are moved (PATCH /v1/leads/{id} with another status).',
    ]);
    // Its name can change; once the lead moved on, it can go.
    await stack.http().patch(`/v1/config/statuses/${contacted.id}`).set(t.sandbox).send({ name: 'Reached' }).expect(200);
    await stack.http().patch(`/v1/leads/${lead.id}`).set(t.sandbox).send({ status: 'new' }).expect(200);
    await stack.http().delete(`/v1/config/statuses/${contacted.id}`).set(t.sandbox).expect(200);

    const proposal = (await list(t, 'opportunity')).find((s) => s.code === 'proposal')!;
    await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Deal', value: 10, stageId: proposal.id }).expect(201);
    const stage = await stack.http().delete(`/v1/config/statuses/${proposal.id}`).set(t.sandbox);
    expect([stage.status, stage.body.message]).toEqual([
      409,
      '1 opportunity is in this stage. It cannot be deleted until they are moved (PATCH /v1/opportunities/{id} with another stageId).',
    ]);
    const won = await stack.http().patch(`/v1/config/statuses/${proposal.id}`).set(t.sandbox).send({ isClosed: true, isWon: true });
    expect([won.status, won.body.message]).toEqual([
      409,
      '1 opportunity is in this stage. Whether it is closed or won cannot change until they are moved (PATCH /v1/opportunities/{id} with another stageId).',
    ]);
    await stack.http().patch(`/v1/config/statuses/${proposal.id}`).set(t.sandbox).send({ defaultProbability: 45 }).expect(200);
  });

  it('converts a lead without qualifying it when the tenant has no qualified status', async () => {
    const t = await newTenant(stack.db);
    const qualified = (await list(t, 'lead')).find((s) => s.code === 'qualified')!;
    await stack.http().delete(`/v1/config/statuses/${qualified.id}`).set(t.sandbox).expect(200);
    const lead = await contactedLead(stack, t);
    await stack.http().post('/v1/opportunities/convert').set(t.sandbox).send({ leadId: lead.id }).expect(201);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(t.sandbox)).body.data.status).toBe('contacted');
  });

  it("names the tenant's lead statuses, and the one probably meant, for an unknown status: in a write (422) and a list's filter (400)", async () => {
    const t = await newTenant(stack.db);
    await stack.http().post('/v1/config/statuses').set(t.sandbox).send({ code: 'nurture', name: 'Nurture', sortOrder: 10 }).expect(201);
    const wanted = `Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead): "new", "contacted", "qualified", "unqualified", "nurture"`;
    const created = await stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(validLead({ status: 'Nurture' }));
    expect([created.status, created.body.errors]).toEqual([422, [{ field: 'status', message: `${wanted}; did you mean "nurture"?` }]]);
    const filtered = await stack.http().get('/v1/leads?status=New').set(t.sandbox);
    expect([filtered.status, filtered.body.message, filtered.body.errors]).toEqual([
      400,
      'Invalid query parameters',
      [{ field: 'status', message: `${wanted}; did you mean "new"?` }],
    ]);
    const unlike = await stack.http().get('/v1/leads?status=zzz').set(t.sandbox);
    expect(unlike.body.errors).toEqual([{ field: 'status', message: wanted }]);
    // A status of the tenant's that no lead has yet is an empty page, not an error.
    const none = await stack.http().get('/v1/leads?status=nurture').set(t.sandbox);
    expect([none.status, none.body.data]).toEqual([200, []]);
  });

  it('keeps tenants and environments apart: another tenant or environment gets 404', async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const mine = (await list(t, 'lead'))[1];
    expect((await stack.http().get(`/v1/config/statuses/${mine.id}`).set(other.sandbox)).status).toBe(404);
    expect((await stack.http().get(`/v1/config/statuses/${mine.id}`).set(t.live)).status).toBe(404);
    expect((await stack.http().patch(`/v1/config/statuses/${mine.id}`).set(other.sandbox).send({ name: 'z' })).status).toBe(404);
    expect((await stack.http().delete(`/v1/config/statuses/${mine.id}`).set(t.live)).status).toBe(404);
    expect((await stack.http().get(`/v1/config/statuses/${mine.id}`).set(t.sandbox)).status).toBe(200);
  });
});
