import { existsSync } from 'node:fs';
import { objectKey } from '../lib/files/file-storage';
import { localPathOf } from '../lib/files/local-storage';
import { decodeId } from '../lib/ids';
import { pendingUploadSweepScheduleId, ensurePendingUploadSweepSchedule } from '../lib/temporal/pending-upload-sweep-schedule';
import { pendingUploadSweepWorkflow } from '../workflows/pending-upload-sweep';
import { DEFINITION_MAX_BYTES } from '../contracts/definition-size';
import { threeEmails } from './support/sequences';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

/** Caps on what one request can make the service hold or do, so one caller cannot exhaust memory, the pool or the worker. */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const fieldsOf = (body: { errors?: { field: string; message: string }[] }) => (body.errors ?? []).map((e) => e.field);

describe('caps', () => {
  it('allows 20 webhook endpoints per tenant and environment and answers the 21st 422 naming url', async () => {
    const t = await newTenant(stack.db);
    const create = (headers: Record<string, string>, i: number) =>
      stack
        .http()
        .post('/v1/integrations/webhooks')
        .set(headers)
        .send({ url: `http://127.0.0.1:9/hook-${i}`, events: ['*'] });
    for (let i = 0; i < 20; i++) expect((await create(t.sandbox, i)).status).toBe(201);
    const over = await create(t.sandbox, 20);
    expect(over.status).toBe(422);
    expect(fieldsOf(over.body)).toEqual(['url']);
    expect(over.body.errors[0].message).toMatch(/At most 20 webhook endpoints per environment; delete one/);
    // The other environment has its own 20.
    expect((await create(t.live, 0)).status).toBe(201);
  });

  it('refuses a recover reaching back more than 30 days (422 naming since)', async () => {
    const t = await newTenant(stack.db);
    const hook = (await stack.http().post('/v1/integrations/webhooks').set(t.sandbox).send({ url: 'http://127.0.0.1:9/hook' })).body.data;
    const recover = (since: string) => stack.http().post(`/v1/integrations/webhooks/${hook.id}/recover`).set(t.sandbox).send({ since });
    const old = await recover(new Date(Date.now() - 31 * 86_400_000).toISOString());
    expect([old.status, fieldsOf(old.body)]).toEqual([422, ['since']]);
    expect(old.body.errors[0].message).toBe('Must be within the last 30 days');
    const recent = await recover(new Date(Date.now() - 86_400_000).toISOString());
    expect(recent.status).toBe(202);
    expect(recent.body.data).toMatchObject({ type: 'webhook.recover', total: 0, webhookId: hook.id });
  });

  it(`refuses a workflow definition over ${DEFINITION_MAX_BYTES} bytes (422 naming nodes), on create and on update`, async () => {
    const t = await newTenant(stack.db);
    const base = threeEmails();
    const big = {
      ...base,
      nodes: base.nodes.map((n) => (n.type === 'email' ? { ...n, data: { ...n.data, body: 'x'.repeat(19_000) } } : n)),
    };
    // 3 x 19 KB is fine; 14 such emails are not.
    expect((await stack.http().post('/v1/workflows').set(t.sandbox).send(big)).status).toBe(201);
    const many = { ...big, nodes: [...big.nodes], edges: [...big.edges] };
    const last = many.edges.pop()!; // email-3 -> done
    let previous = 'email-3';
    for (let i = 4; i <= 14; i++) {
      many.nodes.push({
        nodeId: `email-${i}`,
        type: 'email',
        position: { x: 0, y: i * 100 },
        data: { subjectLine: `Note ${i}`, body: 'y'.repeat(19_000) },
      });
      many.edges.push({ edgeId: `x${i}`, source: previous, target: `email-${i}` });
      previous = `email-${i}`;
    }
    many.edges.push({ ...last, source: previous });
    const refused = await stack.http().post('/v1/workflows').set(t.sandbox).send(many);
    expect([refused.status, fieldsOf(refused.body)]).toEqual([422, ['nodes']]);
    expect(refused.body.errors[0].message).toMatch(new RegExp(`at most ${DEFINITION_MAX_BYTES} are allowed`));

    const created = (await stack.http().post('/v1/workflows').set(t.sandbox).send(threeEmails())).body.data;
    const patched = await stack.http().patch(`/v1/workflows/${created.id}`).set(t.sandbox).send({ nodes: many.nodes, edges: many.edges });
    expect([patched.status, fieldsOf(patched.body)]).toEqual([422, ['nodes']]);
  });

  it('states the caps in the OpenAPI document', async () => {
    const doc = (await stack.http().get('/v1/openapi.json').expect(200)).body;
    const schemas = doc.components.schemas;
    expect(schemas.WorkflowDefinition.properties.nodes).toMatchObject({ maxItems: 200 });
    expect(schemas.WorkflowDefinition.properties.nodes.description).toContain(String(DEFINITION_MAX_BYTES));
    expect(schemas.WebhookRecover.properties.since.description).toMatch(/At most 30 days ago/);
    expect(schemas.WebhookCreate.description).toMatch(/default 20/);
    const recover = doc.paths['/v1/integrations/webhooks/{id}/recover'].post;
    expect(recover.summary).toMatch(/within 30 days\): 202 with the operation to poll/);
  });

  it('removes direct uploads never completed within 24 h, with their bytes, and leaves the others', async () => {
    const t: TestTenant = await newTenant(stack.db);
    const start = async (fileName: string) => {
      const res = await stack.http().post('/v1/files/uploads').set(t.sandbox).send({ fileName, contentType: 'application/pdf', size: 11 });
      expect(res.status).toBe(201);
      return res.body.data as { id: string; upload: { url: string } };
    };
    const put = (url: string) => stack.http().put(new URL(url).pathname).set('Content-Type', 'application/pdf').send('%PDF-1.7 ok');
    const stale = await start('stale.pdf');
    await put(stale.upload.url).expect(200); // bytes arrived, but nobody completed the upload
    const fresh = await start('fresh.pdf');
    const done = await start('done.pdf');
    await put(done.upload.url).expect(200);
    await stack.http().post(`/v1/files/${done.id}/complete`).set(t.sandbox).expect(200);
    const dbId = (id: string) => decodeId('file', id) as string;
    await stack.db.query(`UPDATE files SET created_at = now() - interval '25 hours' WHERE id = ANY($1::bigint[])`, [
      [dbId(stale.id), dbId(done.id)],
    ]);
    const bytes = (id: string) => localPathOf(objectKey({ tenantId: t.tenant.id, environment: 'sandbox' }, dbId(id)));
    expect(existsSync(bytes(stale.id))).toBe(true);

    const result = await stack.client.workflow.execute(pendingUploadSweepWorkflow, {
      taskQueue: stack.taskQueue,
      workflowId: `pending-upload-sweep-test-${Date.now()}`,
      args: [{}],
    });
    expect(result.expired).toBeGreaterThanOrEqual(1);
    await stack.http().get(`/v1/files/${stale.id}`).set(t.sandbox).expect(404);
    expect(existsSync(bytes(stale.id))).toBe(false);
    await stack.http().get(`/v1/files/${fresh.id}`).set(t.sandbox).expect(200);
    await stack.http().get(`/v1/files/${done.id}`).set(t.sandbox).expect(200);
    expect(existsSync(bytes(done.id))).toBe(true);
  });

  it('registers the hourly pending-upload sweep schedule idempotently', async () => {
    const first = await ensurePendingUploadSweepSchedule(stack.client, stack.taskQueue);
    const again = await ensurePendingUploadSweepSchedule(stack.client, stack.taskQueue);
    expect([first.created, again.created]).toEqual([true, false]);
    const handle = stack.client.schedule.getHandle(pendingUploadSweepScheduleId(stack.taskQueue));
    const description = await handle.describe();
    expect(description.spec.intervals?.[0].every).toBe(3_600_000);
    expect(description.action).toMatchObject({
      type: 'startWorkflow',
      workflowType: 'pendingUploadSweepWorkflow',
      taskQueue: stack.taskQueue,
    });
    await handle.delete();
  });
});
