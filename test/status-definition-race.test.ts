import type { Response } from 'supertest';
import type { QueryRunner } from 'typeorm';
import { waitUntil } from './support/wait-until';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * A lead status is deleted (DELETE /v1/config/statuses/:id) only while no lead has it, and every
 * write of a lead's status holds the definition until it commits (domain/leads/statuses.ts). Each
 * test puts one side in the middle of its transaction, holding what the other side needs, checks
 * that the other side waits for it in PostgreSQL, then lets the first commit: whichever came
 * second sees the first's result. Never a lead whose status no longer exists, never a 5xx.
 */
let stack: TestStack;
beforeAll(async () => {
  // The two sides run as requests of one tenant, as from two API processes: this one's fair share
  // would otherwise queue the second behind the first (one slot while another tenant was active).
  stack = await startStack({ appDeps: { tenantMaxInFlight: 4, tenantSharedMaxInFlight: 4 } });
});
afterAll(() => stack.stop());

const UNKNOWN_STATUS = {
  field: 'status',
  message: "Must be one of the tenant's lead statuses (GET /v1/config/statuses?entityType=lead)",
};
const IN_USE = '1 lead has this status. It cannot be deleted until they are moved (PATCH /v1/leads/{id} with another status).';

const statusId = async (t: TestTenant, code: string) =>
  (
    (await stack.http().get('/v1/config/statuses?entityType=lead').set(t.sandbox).expect(200)).body.data as { id: string; code: string }[]
  ).find((s) => s.code === code)!.id;

/** A transaction of the test's own, on a connection of its own. */
async function transaction(): Promise<{ runner: QueryRunner; pid: number; end: (commit: boolean) => Promise<void> }> {
  const runner = stack.db.createQueryRunner();
  await runner.connect();
  await runner.startTransaction();
  const [{ pid }] = await runner.query('SELECT pg_backend_pid() AS pid');
  return {
    runner,
    pid,
    end: async (commit) => {
      await (commit ? runner.commitTransaction() : runner.rollbackTransaction());
      await runner.release();
    },
  };
}

/**
 * The backend of `request` once it waits in PostgreSQL for a lock `pid` holds (in a statement that
 * matches `query`); fails as soon as the request is answered instead, without having waited.
 */
function waiting(pid: number, query: RegExp, what: string, request: Promise<Response>): Promise<number> {
  const waits = waitUntil(async () => {
    const rows: { pid: number; query: string }[] = await stack.db.query(
      `SELECT pid, query FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND $1 = ANY(pg_blocking_pids(pid))`,
      [pid],
    );
    return rows.find((r) => query.test(r.query))?.pid;
  }, what);
  const answered = request.then((res): number => {
    throw new Error(`expected ${what}, but it was answered ${res.status} without waiting: ${JSON.stringify(res.body)}`);
  });
  answered.catch(() => undefined); // the answer that comes after the wait is the test's to read
  return Promise.race([waits, answered]);
}

/** A delete in the middle of its transaction, as DELETE /v1/config/statuses/:id does it: the row locked FOR UPDATE, then deleted. */
async function deleting(t: TestTenant, code: string) {
  const tx = await transaction();
  const [row] = await tx.runner.query(
    `SELECT id FROM status_definitions WHERE tenant_id = $1 AND environment = 'sandbox' AND entity_type = 'lead' AND code = $2 FOR UPDATE`,
    [t.tenant.id, code],
  );
  await tx.runner.query('DELETE FROM status_definitions WHERE id = $1', [row.id]);
  return tx;
}

/**
 * Holds a dedupe key of `email` in a transaction of the test's: a lead write that claims it (a
 * create, or a PATCH of the email) waits for it, after it took its status, and goes on once the
 * transaction rolls back. So the write is caught in the middle of its own transaction.
 */
async function holdingKey(t: TestTenant, email: string) {
  const tx = await transaction();
  await tx.runner.query(`INSERT INTO lead_dedupe_keys (tenant_id, environment, key, lead_id) VALUES ($1, 'sandbox', $2, 0)`, [
    t.tenant.id,
    `e:${email.toLowerCase()}`,
  ]);
  return tx;
}

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
    const del = await deleting(t, 'contacted');
    const create = stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(validLead({ status: 'contacted' }))
      .then((r) => r);
    try {
      await waiting(del.pid, /^WITH /, 'the create to wait for the delete', create);
    } finally {
      await del.end(true);
    }
    const res = await create;
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STATUS]]);
    expect(await orphans(t)).toEqual([]);
  });

  it('POST /v1/leads before the delete: the delete waits for the create, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await statusId(t, 'contacted');
    const lead = validLead({ status: 'contacted' });
    const key = await holdingKey(t, lead.email);
    const create = stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(lead)
      .then((r) => r);
    const creating = await waiting(key.pid, /^WITH /, 'the create to hold its status and wait on the key', create);
    const del = stack
      .http()
      .delete(`/v1/config/statuses/${id}`)
      .set(t.sandbox)
      .then((r) => r);
    try {
      await waiting(creating, /FROM "status_definitions"/, 'the delete to wait for the create', del);
    } finally {
      await key.end(false);
    }
    const [created, deleted] = await Promise.all([create, del]);
    expect(created.status).toBe(201);
    expect(created.body.data.status).toBe('contacted');
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE]);
    expect((await leadsWith(t, 'contacted')).map((l) => l.id)).toEqual([created.body.data.id]);
    expect(await orphans(t)).toEqual([]);
  });

  it('PATCH /v1/leads/:id after the delete took the status: the PATCH waits, then answers 422 and leaves the lead as it was', async () => {
    const t = await tenant();
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201)).body.data;
    const del = await deleting(t, 'qualified');
    const patch = stack
      .http()
      .patch(`/v1/leads/${lead.id}`)
      .set(t.sandbox)
      .send({ status: 'qualified' })
      .then((r) => r);
    try {
      await waiting(del.pid, /FROM "status_definitions"/, 'the PATCH to wait for the delete', patch);
    } finally {
      await del.end(true);
    }
    const res = await patch;
    expect([res.status, res.body.errors]).toEqual([422, [UNKNOWN_STATUS]]);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(t.sandbox).expect(200)).body.data.status).toBe('new');
    expect(await orphans(t)).toEqual([]);
  });

  it('PATCH /v1/leads/:id before the delete: the delete waits for the PATCH, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await statusId(t, 'qualified');
    const lead = (await stack.http().post('/v1/leads').set(t.sandbox).send(validLead()).expect(201)).body.data;
    // The PATCH also changes the email: it claims the new one's key after it took the status.
    const email = `moved-${Date.now()}@example.com`;
    const key = await holdingKey(t, email);
    const patch = stack
      .http()
      .patch(`/v1/leads/${lead.id}`)
      .set(t.sandbox)
      .send({ status: 'qualified', email })
      .then((r) => r);
    const patching = await waiting(key.pid, /INSERT INTO "lead_dedupe_keys"/, 'the PATCH to hold its status and wait on the key', patch);
    const del = stack
      .http()
      .delete(`/v1/config/statuses/${id}`)
      .set(t.sandbox)
      .then((r) => r);
    try {
      await waiting(patching, /FROM "status_definitions"/, 'the delete to wait for the PATCH', del);
    } finally {
      await key.end(false);
    }
    const [patched, deleted] = await Promise.all([patch, del]);
    expect([patched.status, patched.body.data?.status]).toEqual([200, 'qualified']);
    expect([deleted.status, deleted.body.message]).toEqual([409, IN_USE]);
    expect(await orphans(t)).toEqual([]);
  });

  it('a code change waits for a create as a delete does, then answers 409 (in use)', async () => {
    const t = await tenant();
    const id = await statusId(t, 'contacted');
    const lead = validLead({ status: 'contacted' });
    const key = await holdingKey(t, lead.email);
    const create = stack
      .http()
      .post('/v1/leads')
      .set(t.sandbox)
      .send(lead)
      .then((r) => r);
    const creating = await waiting(key.pid, /^WITH /, 'the create to hold its status and wait on the key', create);
    const recode = stack
      .http()
      .patch(`/v1/config/statuses/${id}`)
      .set(t.sandbox)
      .send({ code: 'reached' })
      .then((r) => r);
    try {
      await waiting(creating, /FROM "status_definitions"/, 'the code change to wait for the create', recode);
    } finally {
      await key.end(false);
    }
    const [created, recoded] = await Promise.all([create, recode]);
    expect(created.status).toBe(201);
    expect(recoded.status).toBe(409);
    expect(await orphans(t)).toEqual([]);
  });

  it('a conversion after the delete took `qualified`: it waits, then converts the lead and leaves its status as it was', async () => {
    const t = await tenant();
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(t.sandbox)
        .send(validLead({ status: 'contacted' }))
        .expect(201)
    ).body.data;
    const del = await deleting(t, 'qualified');
    const convert = stack
      .http()
      .post('/v1/opportunities/convert')
      .set(t.sandbox)
      .send({ leadId: lead.id })
      .then((r) => r);
    try {
      await waiting(del.pid, /FROM "status_definitions"/, 'the conversion to wait for the delete', convert);
    } finally {
      await del.end(true);
    }
    expect((await convert).status).toBe(201);
    expect((await stack.http().get(`/v1/leads/${lead.id}`).set(t.sandbox).expect(200)).body.data.status).toBe('contacted');
    expect(await orphans(t)).toEqual([]);
  });

  it('POST /v1/leads/batch after the delete took a status: the items with it fail alone, the others are created', async () => {
    const t = await tenant();
    const del = await deleting(t, 'unqualified');
    const items = [validLead({ status: 'unqualified' }), validLead(), validLead({ status: 'contacted' })];
    const batch = stack
      .http()
      .post('/v1/leads/batch')
      .set(t.sandbox)
      .send({ leads: items })
      .then((r) => r);
    try {
      await waiting(del.pid, /^WITH /, 'the batch to wait for the delete', batch);
    } finally {
      await del.end(true);
    }
    const res = await batch;
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { status: string; errors?: unknown }) => [r.status, r.errors])).toEqual([
      ['error', [UNKNOWN_STATUS]],
      ['created', undefined],
      ['created', undefined],
    ]);
    expect(await orphans(t)).toEqual([]);
  });
});
