import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { encodeId } from '../lib/ids';
import { leadDedupeSweepWorkflow } from '../workflows/lead-dedupe-sweep';
import { historyToObject } from './support/history';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';

let stack: TestStack;
let tenant: TestTenant;

beforeAll(async () => {
  stack = await startStack();
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

describe('asynchronous duplicate detection (API -> Temporal -> database)', () => {
  it('finds an earlier lead with the same normalised email or phone and lists it on both leads', async () => {
    const first = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ email: 'dup@example.com', phone: '+1 (555) 010-2030' }))
    ).body.data;
    const byEmail = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ email: ' DUP@example.com' }))
    ).body.data;
    const byPhone = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ phone: '15550102030' }))
    ).body.data;
    const unrelated = (await stack.http().post('/v1/leads').set(tenant.live).send(validLead())).body.data;
    await stack.workflows.drain(); // the starts happen after the responses

    for (const lead of [first, byEmail, byPhone, unrelated]) {
      const handle = stack.client.workflow.getHandle(`lead-dedupe/${lead.id}`);
      await handle.result();
      const description = await handle.describe();
      expect(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
        expect.arrayContaining([
          ['TenantId', tenant.id],
          ['Environment', 'live'],
          ['LeadId', lead.id],
        ]),
      );
    }

    const dupes = await stack.http().get(`/v1/leads/${first.id}/duplicates`).set(tenant.live);
    expect(dupes.status).toBe(200);
    const found = dupes.body.data.map((d: { lead: { id: string }; reasons: string[] }) => [d.lead.id, d.reasons]);
    expect(found).toEqual(
      expect.arrayContaining([
        [byEmail.id, ['email']],
        [byPhone.id, ['phone']],
      ]),
    );
    expect(found).toHaveLength(2);
    const none = await stack.http().get(`/v1/leads/${unrelated.id}/duplicates`).set(tenant.live);
    expect(none.body.data).toEqual([]);

    if (process.env.RECORD_HISTORIES) {
      const history = await stack.client.workflow.getHandle(`lead-dedupe/${byEmail.id}`).fetchHistory();
      writeFileSync(path.join(__dirname, 'histories', 'lead-dedupe.json'), JSON.stringify(historyToObject(history), null, 1));
    }
  });

  it('never pairs leads across environments', async () => {
    const live = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ email: 'env@example.com' }))
    ).body.data;
    const sandbox = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.sandbox)
        .send(validLead({ email: 'env@example.com' }))
    ).body.data;
    await stack.workflows.drain();
    await stack.client.workflow.getHandle(`lead-dedupe/${sandbox.id}`).result();
    expect((await stack.http().get(`/v1/leads/${sandbox.id}/duplicates`).set(tenant.sandbox)).body.data).toEqual([]);
    expect((await stack.http().get(`/v1/leads/${live.id}/duplicates`).set(tenant.live)).body.data).toEqual([]);
  });

  it('answers before the check starts, and the sweep starts checks that never started', async () => {
    // A lead committed without its start (the API died, or its start queue was full).
    const [row] = await stack.db.query(
      `INSERT INTO leads (tenant_id, environment, email, email_normalized, first_name, last_name, created_at)
       VALUES ($1, 'live', 'Lost@Example.com', 'lost@example.com', 'Lost', 'Start', now() - interval '5 minutes') RETURNING id`,
      [tenant.tenant.id],
    );
    const twin = (
      await stack
        .http()
        .post('/v1/leads')
        .set(tenant.live)
        .send(validLead({ email: 'lost@example.com' }))
    ).body.data;
    await stack.workflows.drain();
    await stack.client.workflow.getHandle(`lead-dedupe/${twin.id}`).result();

    const swept = await stack.client.workflow.execute(leadDedupeSweepWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `lead-dedupe-sweep-test-${Date.now()}`,
      args: [{ minAgeMs: 60_000 }],
    });
    expect(swept.started).toBeGreaterThanOrEqual(1);
    const lostId = encodeId('lead', row.id);
    await stack.client.workflow.getHandle(`lead-dedupe/${lostId}`).result();
    const [checked] = await stack.db.query('SELECT duplicates_checked_at FROM leads WHERE id = $1', [row.id]);
    expect(checked.duplicates_checked_at).not.toBeNull();
    const dupes = await stack.http().get(`/v1/leads/${lostId}/duplicates`).set(tenant.live);
    expect(dupes.body.data.map((d: { lead: { id: string } }) => d.lead.id)).toEqual([twin.id]);

    // Nothing left for a second sweep of this tenant's old leads: it starts no second check.
    const again = await stack.db.query(`SELECT count(*)::int AS n FROM leads WHERE tenant_id = $1 AND duplicates_checked_at IS NULL`, [
      tenant.tenant.id,
    ]);
    expect(again[0].n).toBe(0);
  });
});
