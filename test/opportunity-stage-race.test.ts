import { interleave, type First, type Send } from './support/interleave';
import { installWritePause, pausingWrites } from './support/pause-writes';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { definitionId, deleting } from './support/status-definitions';

/**
 * An opportunity stage is deleted (DELETE /v1/config/statuses/:id), or its code or closed and won
 * flags change, only while no opportunity is in it, and every write of an opportunity's stage (a
 * create, a PATCH of stageId, a conversion) holds the stage until it commits
 * (domain/opportunities/stages.ts). Each test puts one side in the middle of its transaction,
 * holding what the other needs, checks that the other waits for it in PostgreSQL, then lets the
 * first commit (interleave): whichever came second sees the first's result. Never an opportunity in
 * a stage that no longer exists (or that its code, open, won or lost state no longer describes),
 * never a 5xx.
 */
let stack: TestStack;
let removePause: () => Promise<void>;
beforeAll(async () => {
  // Two requests of one tenant, as from two API processes: the fair share would queue the second behind the first.
  stack = await startStack({ appDeps: { tenantMaxInFlight: 4, tenantSharedMaxInFlight: 4 } });
  removePause = await installWritePause(stack.db, 'opportunities');
});
afterAll(async () => {
  await removePause();
  await stack.stop();
});

const UNKNOWN_STAGE = { field: 'stageId', message: 'Opportunity stage not found' };
const IN_USE = (refused: string) =>
  `1 opportunity is in this stage. ${refused} until they are moved (PATCH /v1/opportunities/{id} with another stageId).`;
const HOLDS_STAGE = /FROM "status_definitions"/;

/** The first side of a race: a request of `t`'s, paused when it writes its opportunity (after it took its stage). */
const pausedAtItsWrite = (t: TestTenant, request: Send, write: 'INSERT INTO' | 'UPDATE'): First => ({
  request,
  pause: pausingWrites('opportunities', t.tenant.id),
  pausedIn: new RegExp(`^${write} "opportunities"`),
});

/** Opportunities of the scope whose stage no opportunity stage describes as they record it (its code, open, won or lost). */
const strays = (t: TestTenant) =>
  stack.db.query(
    `SELECT o.id FROM opportunities o WHERE o.tenant_id = $1 AND o.environment = 'sandbox' AND NOT EXISTS (
       SELECT 1 FROM status_definitions s WHERE s.id = o.stage_id AND s.tenant_id = o.tenant_id AND s.environment = o.environment
         AND s.entity_type = 'opportunity' AND s.code = o.stage
         AND o.status = CASE WHEN NOT s.is_closed THEN 'open' WHEN s.is_won THEN 'won' ELSE 'lost' END)`,
    [t.tenant.id],
  );

/** A tenant with its stages seeded and one opportunity in the default stage (which seeds them). */
async function tenant(): Promise<TestTenant> {
  const t = await newTenant(stack.db);
  await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Seed' }).expect(201);
  return t;
}

const createIn = (t: TestTenant, stageId: string) => () =>
  stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Deal', stageId });
const deleteStage = (t: TestTenant, id: string) => () => stack.http().delete(`/v1/config/statuses/${id}`).set(t.sandbox);
const newLead = async (t: TestTenant) => (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201)).body.data;
const dealsOf = async (t: TestTenant, leadId: string) =>
  ((await stack.http().get(`/v1/opportunities?leadId=${leadId}`).set(t.sandbox).expect(200)).body.data as { id: string }[]).map(
    (o) => o.id,
  );
const getLead = async (t: TestTenant, id: string) => (await stack.http().get(`/v1/leads/${id}`).set(t.sandbox).expect(200)).body.data;

describe('an opportunity stage deleted while an opportunity is written into it', () => {
  it('POST /v1/opportunities after the delete took the stage: the create waits, then answers the 422 of an unknown stage', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'proposal');
    const { second: res } = await interleave(stack.db, deleting(t, 'opportunity', 'proposal'), {
      request: createIn(t, id),
      waitsIn: HOLDS_STAGE,
    });
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STAGE]]);
    expect(await strays(t)).toEqual([]);
  });

  it('POST /v1/opportunities before the delete: the delete waits for the create, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'proposal');
    const { first: created, second: deleted } = await interleave(stack.db, pausedAtItsWrite(t, createIn(t, id), 'INSERT INTO'), {
      request: deleteStage(t, id),
      waitsIn: HOLDS_STAGE,
    });
    expect([created!.status, created!.body.data.stage]).toEqual([201, 'proposal']);
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE('It cannot be deleted')]);
    expect(await strays(t)).toEqual([]);
  });

  it('PATCH /v1/opportunities/:id after the delete took the stage: the PATCH waits, then answers 422 and leaves the deal as it was', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'negotiation');
    const deal = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Deal' }).expect(201)).body.data;
    const { second: res } = await interleave(stack.db, deleting(t, 'opportunity', 'negotiation'), {
      request: () => stack.http().patch(`/v1/opportunities/${deal.id}`).set(t.sandbox).send({ stageId: id }),
      waitsIn: HOLDS_STAGE,
    });
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STAGE]]);
    expect((await stack.http().get(`/v1/opportunities/${deal.id}`).set(t.sandbox).expect(200)).body.data.stage).toBe('qualified');
    expect(await strays(t)).toEqual([]);
  });

  it('PATCH /v1/opportunities/:id before the delete: the delete waits for the PATCH, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'negotiation');
    const deal = (await stack.http().post('/v1/opportunities').set(t.sandbox).send({ name: 'Deal' }).expect(201)).body.data;
    const patch = () => stack.http().patch(`/v1/opportunities/${deal.id}`).set(t.sandbox).send({ stageId: id });
    const { first: patched, second: deleted } = await interleave(stack.db, pausedAtItsWrite(t, patch, 'UPDATE'), {
      request: deleteStage(t, id),
      waitsIn: HOLDS_STAGE,
    });
    expect([patched!.status, patched!.body.data?.stage]).toEqual([200, 'negotiation']);
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE('It cannot be deleted')]);
    expect(await strays(t)).toEqual([]);
  });

  it('a conversion after the delete took its stage: it waits, then answers the 422 of an unknown stage and leaves the lead unconverted', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'proposal');
    const lead = await newLead(t);
    const { second: res } = await interleave(stack.db, deleting(t, 'opportunity', 'proposal'), {
      request: () => stack.http().post('/v1/opportunities/convert').set(t.sandbox).send({ leadId: lead.id, stageId: id }),
      waitsIn: HOLDS_STAGE,
    });
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STAGE]]);
    expect(await getLead(t, lead.id)).toMatchObject({ status: 'new' });
    expect(await dealsOf(t, lead.id)).toEqual([]);
    expect(await strays(t)).toEqual([]);
  });

  it('a conversion before the delete: the delete waits for it, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'proposal');
    const lead = await newLead(t);
    const convert = () => stack.http().post('/v1/opportunities/convert').set(t.sandbox).send({ leadId: lead.id, stageId: id });
    const { first: converted, second: deleted } = await interleave(stack.db, pausedAtItsWrite(t, convert, 'INSERT INTO'), {
      request: deleteStage(t, id),
      waitsIn: HOLDS_STAGE,
    });
    expect([converted!.status, converted!.body.data.stage]).toEqual([201, 'proposal']);
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE('It cannot be deleted')]);
    expect(await getLead(t, lead.id)).toMatchObject({ status: 'qualified' });
    expect(await dealsOf(t, lead.id)).toEqual([converted!.body.data.id]);
    expect(await strays(t)).toEqual([]);
  });
});

describe("an opportunity stage's code or closed and won flags changed while an opportunity is written into it", () => {
  it('a change of whether the stage is closed waits for a create as a delete does, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'proposal');
    const { first: created, second: changed } = await interleave(stack.db, pausedAtItsWrite(t, createIn(t, id), 'INSERT INTO'), {
      request: () => stack.http().patch(`/v1/config/statuses/${id}`).set(t.sandbox).send({ isClosed: true }),
      waitsIn: HOLDS_STAGE,
    });
    expect([created!.status, created!.body.data.isClosed]).toEqual([201, false]);
    expect([changed.status, changed.body.message]).toEqual([409, IN_USE('Whether it is closed or won cannot change')]);
    expect(await strays(t)).toEqual([]);
  });

  it('a create after the change took the stage waits, then enters the stage as it is now: its new code, closed and lost', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'opportunity', 'proposal');
    const [{ id: row }] = await stack.db.query(
      `SELECT id FROM status_definitions WHERE tenant_id = $1 AND environment = 'sandbox' AND entity_type = 'opportunity' AND code = 'proposal'`,
      [t.tenant.id],
    );
    // As PATCH /v1/config/statuses/:id does it: the row locked FOR UPDATE, its uses counted (none), then changed.
    const changing: First = {
      statements: async (tx) => {
        await tx.query('SELECT id FROM status_definitions WHERE id = $1 FOR UPDATE', [row]);
        await tx.query(`UPDATE status_definitions SET code = 'dropped', is_closed = true, is_won = false WHERE id = $1`, [row]);
      },
    };
    const { second: res } = await interleave(stack.db, changing, { request: createIn(t, id), waitsIn: HOLDS_STAGE });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ stageId: id, stage: 'dropped', isClosed: true, isWon: false, closedAt: expect.any(String) });
    expect(await strays(t)).toEqual([]);
  });
});
