import type { QueryRunner } from 'typeorm';
import { interleave } from './support/interleave';
import { moveDefaultLeadStatusOnEveryWrite } from './support/moving-default';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { contactedLead, definitionId, deleting } from './support/status-definitions';

/**
 * A lead status is deleted (DELETE /v1/config/statuses/:id) only while no lead has it, and every
 * write of a lead's status holds the definition until it commits (domain/leads/statuses.ts). Each
 * test puts one side in the middle of its transaction, holding what the other side needs, checks
 * that the other side waits for it in PostgreSQL, then lets the first commit (interleave): whichever
 * came second sees the first's result. Never a lead whose status no longer exists, never a 5xx.
 */
let stack: TestStack;
// Names this file's connections, for the trigger that moves a default status under its statements only.
const APPLICATION_NAME = `status-definition-race-${process.pid}`;
beforeAll(async () => {
  // The two sides run as requests of one tenant, as from two API processes: this one's fair share
  // would otherwise queue the second behind the first (one slot while another tenant was active).
  stack = await startStack({ appDeps: { tenantMaxInFlight: 4, tenantSharedMaxInFlight: 4 }, applicationName: APPLICATION_NAME });
});
afterAll(() => stack.stop());

const UNKNOWN_STATUS = {
  field: 'status',
  // Followed by the statuses there are after the race.
  message: expect.stringMatching(/^Must be one of the tenant's lead statuses \(GET \/v1\/config\/statuses\?entityType=lead\)/),
};
const IN_USE = '1 lead has this status. It cannot be deleted until they are moved (PATCH /v1/leads/{id} with another status).';

/**
 * Holds a dedupe key of `email` in a transaction of the test's (interleave's `pause`): a lead write
 * that claims it (a create, or a PATCH of the email) waits for it, after it took its status, and
 * goes on once the transaction rolls back. So the write is caught in the middle of its own transaction.
 */
const holdingKey = (t: TestTenant, email: string) => (tx: QueryRunner) =>
  tx.query(`INSERT INTO lead_dedupe_keys (tenant_id, environment, key, lead_id) VALUES ($1, 'sandbox', $2, 0)`, [
    t.tenant.id,
    `e:${email.toLowerCase()}`,
  ]);

/** Leads of the scope whose status no lead status definition of the scope describes. */
const orphans = (t: TestTenant) =>
  stack.db.query(
    `SELECT l.id FROM leads l WHERE l.tenant_id = $1 AND l.environment = 'sandbox' AND NOT EXISTS (
       SELECT 1 FROM status_definitions s WHERE s.tenant_id = l.tenant_id AND s.environment = l.environment
         AND s.entity_type = 'lead' AND s.code = l.status)`,
    [t.tenant.id],
  );

const leadsWith = async (t: TestTenant, status: string) =>
  (await stack.http().get(`/v1/leads?status=${status}`).set(t.sandbox).expect(200)).body.data as { id: string }[];

/** A tenant with its statuses seeded and one lead (the first lead seeds them too). */
async function tenant(): Promise<TestTenant> {
  const t = await newTenant(stack.db);
  await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201);
  return t;
}

describe('a lead status deleted while a lead is written with it', () => {
  it('POST /v1/leads after the delete took the status: the create waits, then answers the 422 of an unknown status', async () => {
    const t = await tenant();
    const { second: res } = await interleave(stack.db, deleting(t, 'lead', 'contacted'), {
      request: () =>
        stack
          .http()
          .post('/v1/leads')
          .set(t.sandbox)
          .send(validLead({ status: 'contacted' })),
      waitsIn: /^WITH /,
    });
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STATUS]]);
    expect(await orphans(t)).toEqual([]);
  });

  it('POST /v1/leads before the delete: the delete waits for the create, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'lead', 'contacted');
    const lead = validLead({ status: 'contacted' });
    const { first: created, second: deleted } = await interleave(
      stack.db,
      { request: () => stack.http().post('/v1/leads').set(t.sandbox).send(lead), pause: holdingKey(t, lead.email), pausedIn: /^WITH / },
      { request: () => stack.http().delete(`/v1/config/statuses/${id}`).set(t.sandbox), waitsIn: /FROM "status_definitions"/ },
    );
    expect(created!.status).toBe(201);
    expect(created!.body.data.status).toBe('contacted');
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE]);
    expect((await leadsWith(t, 'contacted')).map((l) => l.id)).toEqual([created!.body.data.id]);
    expect(await orphans(t)).toEqual([]);
  });

  it('PATCH /v1/leads/:id after the delete took the status: the PATCH waits, then answers 422 and leaves the lead as it was', async () => {
    const t = await tenant();
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201)).body.data;
    const { second: res } = await interleave(stack.db, deleting(t, 'lead', 'qualified'), {
      request: () => stack.http().patch(`/v1/leads/${lead.id}`).set(t.sandbox).send({ status: 'qualified' }),
      waitsIn: /FROM "status_definitions"/,
    });
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STATUS]]);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(t.sandbox).expect(200)).body.data.status).toBe('new');
    expect(await orphans(t)).toEqual([]);
  });

  it('PATCH /v1/leads/:id before the delete: the delete waits for the PATCH, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'lead', 'qualified');
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201)).body.data;
    // The PATCH also changes the email: it claims the new one's key after it took the status.
    const email = `moved-${Date.now()}@example.com`;
    const { first: patched, second: deleted } = await interleave(
      stack.db,
      {
        request: () => stack.http().patch(`/v1/leads/${lead.id}`).set(t.sandbox).send({ status: 'qualified', email }),
        pause: holdingKey(t, email),
        pausedIn: /INSERT INTO "lead_dedupe_keys"/,
      },
      { request: () => stack.http().delete(`/v1/config/statuses/${id}`).set(t.sandbox), waitsIn: /FROM "status_definitions"/ },
    );
    expect([patched!.status, patched!.body.data?.status]).toEqual([200, 'qualified']);
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE]);
    expect(await orphans(t)).toEqual([]);
  });

  it('a code change waits for a create as a delete does, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await definitionId(stack, t, 'lead', 'contacted');
    const lead = validLead({ status: 'contacted' });
    const { first: created, second: recoded } = await interleave(
      stack.db,
      { request: () => stack.http().post('/v1/leads').set(t.sandbox).send(lead), pause: holdingKey(t, lead.email), pausedIn: /^WITH / },
      {
        request: () => stack.http().patch(`/v1/config/statuses/${id}`).set(t.sandbox).send({ code: 'reached' }),
        waitsIn: /FROM "status_definitions"/,
      },
    );
    expect(created!.status).toBe(201);
    expect(recoded.status).toBe(409);
    expect(await orphans(t)).toEqual([]);
  });

  it('a conversion after the delete took `qualified`: it waits, then converts the lead and leaves its status as it was', async () => {
    const t = await tenant();
    const lead = await contactedLead(stack, t);
    const { second: converted } = await interleave(stack.db, deleting(t, 'lead', 'qualified'), {
      request: () => stack.http().post('/v1/opportunities/convert').set(t.sandbox).send({ leadId: lead.id }),
      waitsIn: /FROM "status_definitions"/,
    });
    expect(converted.status).toBe(201);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(t.sandbox).expect(200)).body.data.status).toBe('contacted');
    expect(await orphans(t)).toEqual([]);
  });

  it('POST /v1/leads/batch after the delete took a status: the items with it fail alone, the others are created', async () => {
    const t = await tenant();
    const items = [validLead({ status: 'unqualified' }), validLead(), validLead({ status: 'contacted' })];
    const { second: res } = await interleave(stack.db, deleting(t, 'lead', 'unqualified'), {
      request: () => stack.http().post('/v1/leads/batch').set(t.sandbox).send({ leads: items }),
      waitsIn: /^WITH /,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { status: string; errors?: unknown }) => [r.status, r.errors])).toEqual([
      ['error', [UNKNOWN_STATUS]],
      ['created', undefined],
      ['created', undefined],
    ]);
    expect(await orphans(t)).toEqual([]);
  });
});

describe('a default lead status that keeps changing while a lead is created', () => {
  it('POST /v1/leads without a status looks the default up three times, then answers 409 and writes nothing', async () => {
    const t = await newTenant(stack.db);
    await contactedLead(stack, t); // seeds the statuses and leaves the default unused, so its code can change
    const stopMoving = await moveDefaultLeadStatusOnEveryWrite(stack.db, t, APPLICATION_NAME);
    let res;
    try {
      res = await stack.http().post('/v1/leads').set(t.sandbox).send(validLead());
    } finally {
      await stopMoving();
    }
    expect([res.status, res.body]).toMatchObject([
      409,
      {
        success: false,
        status: 409,
        message: "The tenant's default lead status kept changing while the lead was created; send the request again",
      },
    ]);
    expect(res.body.data).toBeUndefined();
    // One move per write: three lookups, each followed by a write that found its status gone.
    const [{ code }] = await stack.db.query(
      `SELECT code FROM status_definitions WHERE tenant_id = $1 AND environment = 'sandbox' AND entity_type = 'lead' AND is_default`,
      [t.tenant.id],
    );
    expect(code).toBe('moved-3');
    expect(await stack.db.query(`SELECT id FROM leads WHERE tenant_id = $1 AND environment = 'sandbox'`, [t.tenant.id])).toHaveLength(1);
  });
});
