import { writeFileSync } from 'node:fs';
import path from 'node:path';
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
    await stack.client.workflow.getHandle(`lead-dedupe/${sandbox.id}`).result();
    expect((await stack.http().get(`/v1/leads/${sandbox.id}/duplicates`).set(tenant.sandbox)).body.data).toEqual([]);
    expect((await stack.http().get(`/v1/leads/${live.id}/duplicates`).set(tenant.live)).body.data).toEqual([]);
  });
});
