import { createServer, connect, type Server, type Socket } from 'node:net';
import { Client, Connection } from '@temporalio/client';
import request from 'supertest';
import { IsNull } from 'typeorm';
import { createApp } from '../api/app';
import { createDataSource } from '../db/data-source';
import { OutboxEvent } from '../db/entities';
import { relayAfterCommit } from '../domain/webhooks/relay';
import { encodeId } from '../lib/ids';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { seedEnrollment } from './support/campaign-seed';
import { outboxOf } from './support/events';
import { threeEmails } from './support/sequences';
import { newTenant, startStack, validLead, type TestStack } from './support/stack';

/** Dependencies that are down must give a prompt 503 in the envelope, never a hang or a 500. */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

/** A TCP proxy to the test database that can be cut, like a database that goes away. */
async function cuttableProxy(target: URL): Promise<{ url: string; cut(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((inbound) => {
    const outbound = connect(Number(target.port), target.hostname);
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = new URL(target);
  url.port = String((server.address() as { port: number }).port);
  return {
    url: url.toString(),
    cut: () =>
      new Promise((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}

const deadTemporal = () =>
  new Client({ connection: Connection.lazy({ address: '127.0.0.1:1', connectTimeout: 500 }), namespace: 'default' });

describe('when a dependency is down', () => {
  it('answers 503 from /readyz and from API calls when PostgreSQL is unreachable', async () => {
    const proxy = await cuttableProxy(new URL(process.env.TEST_DB_URL as string));
    const db = createDataSource({ url: proxy.url, poolSize: 2 });
    await db.initialize();
    const app = createApp({ db, workflows: new WorkflowStarter(stack.client) });
    await proxy.cut();
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ success: false, status: 503, data: { database: 'unavailable', temporal: 'ok' } });
    const res = await request(app)
      .get('/v1/leads')
      .set('X-API-Key', `svc_live_sk_${'a'.repeat(43)}`);
    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBeDefined();
    expect(res.body).toMatchObject({ success: false, status: 503 });
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    await db.destroy().catch(() => undefined);
  });

  it('answers 503 promptly for a conversion when Temporal is unreachable, and still creates leads', async () => {
    const client = deadTemporal();
    const app = createApp(
      { db: stack.db, workflows: new WorkflowStarter(client, stack.taskQueue) },
      { limits: { ipPerMinute: 1e9, authFailuresPerMinute: 1e9 } },
    );
    const tenant = await newTenant(stack.db);
    const lead = await request(app).post('/v1/leads').set(tenant.live).send(validLead());
    expect(lead.status).toBe(201); // duplicate detection is deferred, the lead is not lost
    const started = Date.now();
    const res = await request(app).post('/v1/opportunities/convert').set(tenant.live).send({ leadId: lead.body.data.id });
    expect(res.status).toBe(503);
    expect(res.body).toMatchObject({ success: false, status: 503 });
    expect(Date.now() - started).toBeLessThan(15_000);
    const ready = await request(app).get('/readyz');
    expect(ready.body.data).toEqual({ database: 'ok', temporal: 'unavailable' });
  });

  it('answers 503 for a send when Temporal is unreachable, and the message it stored is failed with email.failed', async () => {
    const app = createApp(
      { db: stack.db, workflows: new WorkflowStarter(deadTemporal(), stack.taskQueue) },
      { limits: { ipPerMinute: 1e9, authFailuresPerMinute: 1e9 } },
    );
    const tenant = await newTenant(stack.db);
    await stack.subscribe(tenant);
    const res = await request(app)
      .post('/v1/communications/send/email')
      .set(tenant.live)
      .send({ to: 'ada@example.com', subject: 'Hi', body: 'Hello' });
    expect(res.status).toBe(503);
    const [message] = (await request(app).get('/v1/communications/messages').set(tenant.live).expect(200)).body.data;
    expect(message).toMatchObject({ status: 'failed', error: 'Workflow engine unavailable' });
    expect(await outboxOf(stack.db, tenant, 'live', ['email.failed'])).toEqual([
      {
        type: 'email.failed',
        data: {
          messageId: message.id,
          to: 'ada@example.com',
          leadId: null,
          campaignId: null,
          reason: 'Workflow engine unavailable',
          failedAt: expect.any(String),
        },
      },
    ]);
    // Temporal is back (the stack's own): the relay dispatches the waiting event, as the sweep
    // would, so that no other test file's sweep finds it left over.
    const waiting = await stack.db.getRepository(OutboxEvent).find({ where: { tenantId: tenant.tenant.id } });
    await relayAfterCommit(stack.db, stack.workflows, waiting);
    expect(await stack.db.getRepository(OutboxEvent).count({ where: { tenantId: tenant.tenant.id, dispatchedAt: IsNull() } })).toBe(0);
  });

  it('lists enrollments promptly, without workflow progress, when Temporal is unreachable', async () => {
    const app = createApp(
      { db: stack.db, workflows: new WorkflowStarter(deadTemporal(), stack.taskQueue) },
      { limits: { ipPerMinute: 1e9, authFailuresPerMinute: 1e9 } },
    );
    const tenant = await newTenant(stack.db);
    const { campaign } = await seedEnrollment(stack.db, threeEmails(), { tenantId: tenant.tenant.id, environment: 'live' });
    const started = Date.now();
    const res = await request(app)
      .get(`/v1/campaigns/${encodeId('campaign', campaign.id)}/enrollments`)
      .set(tenant.live);
    expect(res.status).toBe(200);
    expect(res.body.data.map((e: { progress: unknown }) => e.progress)).toEqual([null]);
    expect(Date.now() - started).toBeLessThan(15_000);
  });
});
