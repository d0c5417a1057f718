import { WebhookEndpoint } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { createLead } from '../domain/leads/leads';
import { issueApiKey } from '../domain/tenants';
import { generateSecret } from '../domain/webhooks/endpoints';
import { decodeId, encodeId } from '../lib/ids';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { createDomainContext } from '../domain/context';
import { postWebhook } from '../lib/webhooks/post-webhook';
import type { DnsSettings } from '../lib/dns';
import { assertPublicTarget, TargetRefusedError } from '../lib/webhooks/target-guard';
import { DnsServer } from './support/dns-server';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';
import { WebhookReceiver } from './support/webhook-receiver';

/** This file runs with WEBHOOK_ALLOW_PRIVATE_TARGETS off, as production does. */
let stack: TestStack;
let tenant: TestTenant;
const PUBLIC_URL = 'https://93.184.215.14/hooks'; // an IP literal: no DNS needed in the sandbox
const BASE = '/v1/integrations/webhooks';

beforeAll(async () => {
  stack = await startStack({ allowPrivateWebhookTargets: false });
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const create = (body: Record<string, unknown>, headers = tenant.sandbox) => stack.http().post(BASE).set(headers).send(body);

/** The documented event catalog, verbatim: event -> data fields (integrators code against exactly these). */
const SPEC_EVENTS: Record<string, string[]> = {
  'lead.created': ['leadId', 'email', 'source'],
  'lead.updated': ['leadId', 'changes'],
  'lead.deleted': ['leadId'],
  'opportunity.created': ['opportunityId', 'value', 'stage'],
  'opportunity.stage_changed': ['opportunityId', 'from', 'to'],
  'opportunity.won': ['opportunityId', 'value'],
  'opportunity.lost': ['opportunityId', 'reason'],
  'partner.registered': ['partnerId', 'company'],
  'partner.approved': ['partnerId'],
  'commission.earned': ['commissionId', 'amount', 'partnerId'],
  'commission.paid': ['commissionId', 'amount'],
  'task.created': ['taskId', 'title', 'assigneeId'],
  'task.completed': ['taskId'],
  'form.submitted': ['formId', 'leadId', 'fields'],
};
/** Engagement events for integrations (docs/decisions.md, "Tracking and engagement events"), beside the spec's. */
const ENGAGEMENT_EVENTS: Record<string, string[]> = {
  'email.sent': ['messageId', 'to', 'leadId', 'campaignId', 'sentAt', 'sandbox'],
  'email.delivered': ['messageId', 'leadId', 'campaignId', 'occurredAt'],
  'email.opened': ['messageId', 'leadId', 'campaignId', 'occurredAt'],
  'email.clicked': ['messageId', 'leadId', 'campaignId', 'occurredAt', 'url'],
  'email.bounced': ['messageId', 'leadId', 'campaignId', 'occurredAt', 'reason'],
  'email.unsubscribed': ['messageId', 'leadId', 'campaignId', 'occurredAt'],
  'email.replied': ['messageId', 'leadId', 'campaignId', 'occurredAt'],
  'email.failed': ['messageId', 'to', 'leadId', 'campaignId', 'reason', 'failedAt'],
  'sms.sent': ['messageId', 'to', 'leadId', 'campaignId', 'sentAt', 'sandbox'],
  'sms.delivered': ['messageId', 'leadId', 'campaignId', 'occurredAt'],
  'sms.failed': ['messageId', 'to', 'leadId', 'campaignId', 'reason', 'failedAt'],
  'campaign.enrollment.started': ['enrollmentId', 'campaignId', 'leadId'],
  'campaign.enrollment.completed': ['enrollmentId', 'campaignId', 'leadId', 'status', 'exitReason'],
};
/** A deal's commission reversed (docs/decisions.md, "A deal's commission follows the deal"). */
const COMMISSION_EVENTS: Record<string, string[]> = {
  'commission.reversed': ['commissionId', 'amount', 'partnerId', 'opportunityId', 'reason'],
};
/** Bulk import (docs/decisions.md, "Bulk lead import"): one event per import. */
const IMPORT_EVENTS: Record<string, string[]> = {
  'lead.import.completed': ['importId', 'status', 'rowsRead', 'created', 'updated', 'skipped', 'failed', 'completedAt'],
};
const CATALOG_EVENTS = { ...SPEC_EVENTS, ...ENGAGEMENT_EVENTS, ...COMMISSION_EVENTS, ...IMPORT_EVENTS };

describe('webhook endpoints API', () => {
  it('creates an endpoint and shows its whsec_ secret only on creation and from /secret', async () => {
    const res = await create({ url: PUBLIC_URL, events: ['lead.created', 'lead.updated'], description: 'CRM sync' });
    expect(res.status).toBe(201);
    const w = res.body.data;
    expect(w).toMatchObject({ url: PUBLIC_URL, events: ['lead.created', 'lead.updated'], description: 'CRM sync', status: 'active' });
    expect(w.id).toMatch(/^whk[A-Za-z0-9]{13,14}$/);
    expect(w.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(w.secret.slice(6), 'base64')).toHaveLength(32);
    const got = await stack.http().get(`${BASE}/${w.id}`).set(tenant.sandbox);
    expect(got.body.data.secret).toBeUndefined();
    const list = await stack.http().get(BASE).set(tenant.sandbox);
    expect(list.body.data.every((x: Record<string, unknown>) => !('secret' in x))).toBe(true);
    const secret = await stack.http().get(`${BASE}/${w.id}/secret`).set(tenant.sandbox);
    expect(secret.body.data).toEqual({ secret: w.secret, previousSecretExpiresAt: null });
  });

  it("defaults events to ['*'] and validates event names", async () => {
    expect((await create({ url: PUBLIC_URL })).body.data.events).toEqual(['*']);
    const bad = await create({ url: PUBLIC_URL, events: ['lead.exploded'] });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].field).toMatch(/^events/);
    expect((await create({ url: PUBLIC_URL, events: ['*', 'lead.created'] })).status).toBe(422);
    // Repeats count once, '*' included: the document's "names and families only, or '*' only" holds.
    expect((await create({ url: PUBLIC_URL, events: ['*', '*'] })).body.data.events).toEqual(['*']);
    expect((await create({ url: PUBLIC_URL, events: [] })).status).toBe(422);
    expect((await create({ url: PUBLIC_URL, secret: 'mine' })).status).toBe(422);
  });

  it('updates, disables and deletes an endpoint', async () => {
    const w = (await create({ url: PUBLIC_URL })).body.data;
    const patched = await stack
      .http()
      .patch(`${BASE}/${w.id}`)
      .set(tenant.sandbox)
      .send({ events: ['lead.deleted'], status: 'disabled', description: null });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ events: ['lead.deleted'], status: 'disabled', description: null, disabledReason: null });
    expect((await stack.http().get(`${BASE}?status=disabled`).set(tenant.sandbox)).body.data.map((x: { id: string }) => x.id)).toContain(
      w.id,
    );
    expect((await stack.http().post(`${BASE}/${w.id}/test`).set(tenant.sandbox)).status).toBe(409);
    expect((await stack.http().delete(`${BASE}/${w.id}`).set(tenant.sandbox)).status).toBe(200);
    expect((await stack.http().get(`${BASE}/${w.id}`).set(tenant.sandbox)).status).toBe(404);
  });

  it('needs webhooks:read / webhooks:write scopes', async () => {
    const readOnly = await issueApiKey(stack.db.manager, {
      tenantId: tenant.tenant.id,
      ownerUserId: tenant.user.id,
      environment: 'sandbox',
      name: 'read only',
      scopes: ['webhooks:read'],
    });
    const headers = { 'X-API-Key': readOnly.fullKey };
    expect((await stack.http().get(BASE).set(headers)).status).toBe(200);
    expect((await create({ url: PUBLIC_URL }, headers)).status).toBe(403);
    const leadsOnly = await issueApiKey(stack.db.manager, {
      tenantId: tenant.tenant.id,
      ownerUserId: tenant.user.id,
      environment: 'sandbox',
      name: 'leads only',
      scopes: ['leads:read'],
    });
    expect((await stack.http().get(BASE).set({ 'X-API-Key': leadsOnly.fullKey })).status).toBe(403);
    // the catalog needs a key, but no particular scope
    expect((await stack.http().get(`${BASE}/catalog`).set({ 'X-API-Key': leadsOnly.fullKey })).status).toBe(200);
  });
});

describe('webhook event catalog', () => {
  it('needs an API key', async () => {
    expect((await stack.http().get(`${BASE}/catalog`)).status).toBe(401);
  });

  // The catalog also holds the email, sms and campaign engagement events.
  it("lists the 14 catalog events and the service's own events by group with exactly their data fields in each example", async () => {
    const res = await stack.http().get(`${BASE}/catalog`).set(tenant.live);
    expect(res.status).toBe(200);
    const catalog = res.body.data as Record<string, { event: string; description: string; examplePayload: Record<string, unknown> }[]>;
    expect(Object.keys(catalog)).toEqual([
      'leads',
      'opportunities',
      'partners',
      'commissions',
      'tasks',
      'forms',
      'email',
      'sms',
      'campaigns',
    ]);
    const entries = Object.values(catalog).flat();
    expect(entries.map((e) => e.event).sort()).toEqual(Object.keys(CATALOG_EVENTS).sort());
    const groupOf: Record<string, string> = {
      lead: 'leads',
      opportunity: 'opportunities',
      partner: 'partners',
      commission: 'commissions',
      task: 'tasks',
      form: 'forms',
      email: 'email',
      sms: 'sms',
      campaign: 'campaigns',
    };
    for (const [group, list] of Object.entries(catalog)) {
      for (const entry of list) {
        expect(groupOf[entry.event.split('.')[0]]).toBe(group);
        expect(Object.keys(entry).sort()).toEqual(['description', 'event', 'examplePayload']);
        expect(entry.description.length).toBeGreaterThan(3);
        const payload = entry.examplePayload as { id: string; type: string; createdAt: string; data: Record<string, unknown> };
        expect(Object.keys(payload).sort()).toEqual(['createdAt', 'data', 'id', 'type']);
        expect(payload.type).toBe(entry.event);
        expect(Object.keys(payload.data).sort()).toEqual([...CATALOG_EVENTS[entry.event]].sort());
        for (const [key, value] of Object.entries(payload.data)) {
          if (key.endsWith('Id')) expect(value).toMatch(/^[a-z]{3}[A-Za-z0-9]{13,14}$/);
        }
      }
    }
    const numbers = entries.flatMap((e) =>
      ['value', 'amount']
        .filter((k) => k in (e.examplePayload.data as object))
        .map((k) => (e.examplePayload.data as Record<string, unknown>)[k]),
    );
    expect(numbers.every((n) => typeof n === 'number')).toBe(true);
  });
});

describe('SSRF protection', () => {
  it.each([
    'http://127.0.0.1:8080/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/hook',
    'http://localhost:3000/hook',
    'http://100.64.0.1/hook',
    'http://[fd00::1]/hook',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[2002:7f00:1::1]/hook', // 6to4 of 127.0.0.1
    'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook', // Teredo
    'http://[64:ff9b:1::a00:1]/hook', // local-use NAT64 of 10.0.0.1
    'ftp://93.184.215.14/hook',
  ])('refuses %s at creation and update with a 422 on url', async (url) => {
    const res = await create({ url });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([{ field: 'url', message: expect.any(String) }]);
    const w = (await create({ url: PUBLIC_URL })).body.data;
    const patch = await stack.http().patch(`${BASE}/${w.id}`).set(tenant.sandbox).send({ url });
    expect(patch.status).toBe(422);
    expect(patch.body.errors[0].field).toBe('url');
  });

  it('allows the same addresses when WEBHOOK_ALLOW_PRIVATE_TARGETS is on, but never other schemes', async () => {
    for (const url of ['http://127.0.0.1:8080/hook', 'http://10.0.0.1/', 'http://169.254.169.254/', 'http://[::1]/', 'http://localhost/']) {
      await expect(assertPublicTarget(url, true)).resolves.toBeUndefined();
    }
    await expect(assertPublicTarget('file:///etc/passwd', true)).rejects.toThrow('Only http and https');
    await expect(assertPublicTarget(PUBLIC_URL, false)).resolves.toBeUndefined();
  });

  describe('host names resolve over DNS (c-ares) with a bound', () => {
    let dns: DnsServer;
    let settings: DnsSettings;
    beforeAll(async () => {
      dns = await new DnsServer({
        'public.test': { A: ['93.184.215.14'] },
        'sixtofour.test': { A: ['93.184.215.14'], AAAA: ['2002:7f00:1::1'] },
        'receiver.test': { A: ['127.0.0.1'] },
        'hangs.test': { silent: true },
      }).start();
      settings = { servers: [dns.address], timeoutMs: 1000 };
    });
    afterAll(() => dns.stop());

    it('asks the configured DNS server (not getaddrinfo) and refuses a name with any private address', async () => {
      await expect(assertPublicTarget('https://public.test/hook', false, settings)).resolves.toBeUndefined();
      expect(dns.queries).toContain('public.test');
      await expect(assertPublicTarget('https://sixtofour.test/hook', false, settings)).rejects.toThrow(TargetRefusedError);
    });

    it('gives up on a DNS server that never answers, with a refusal instead of a hang', async () => {
      await expect(assertPublicTarget('https://hangs.test/hook', false, settings)).rejects.toThrow('Host name could not be resolved');
    });

    it('connects through the same resolver at delivery, and refuses there what resolves to a private address', async () => {
      const receiver = await new WebhookReceiver().start();
      const url = receiver.url('/named').replace('127.0.0.1', 'receiver.test');
      const send = (allowPrivate: boolean) => postWebhook({ url, headers: {}, body: '{}', allowPrivate, dns: settings });
      try {
        await expect(send(false)).rejects.toBeInstanceOf(TargetRefusedError);
        expect((await send(true)).statusCode).toBe(200);
        expect(receiver.for('/named')).toHaveLength(1);
      } finally {
        await receiver.stop();
      }
    });
  });

  it('refuses a private target again at delivery time, without retrying, and records why', async () => {
    // as if DNS changed after creation: the row points at a loopback receiver
    const receiver = await new WebhookReceiver().start();
    try {
      const t = await newTenant(stack.db);
      const scope = { tenantId: t.tenant.id, environment: 'sandbox' as const };
      const endpoint = await scoped(stack.db.manager, WebhookEndpoint, scope).insert({
        url: receiver.url('/ssrf'),
        events: ['*'],
        secret: generateSecret(),
        status: 'active',
      });
      const workflows = new WorkflowStarter(stack.client, stack.taskQueue);
      const ctx = createDomainContext({ db: stack.db, scope, actorUserId: t.user.id, workflows });
      const lead = await createLead(ctx, { email: 'ssrf@example.com', firstName: 'A', lastName: 'B' });
      await workflows.drain(); // the relay starts the delivery after the create returns
      const [event] = await stack.db.query('SELECT id FROM events WHERE tenant_id = $1', [t.tenant.id]);
      const handle = stack.client.workflow.getHandle(`webhook/${encodeId('event', event.id)}/${encodeId('webhook', endpoint.id)}`);
      expect(await handle.result()).toEqual({ status: 'failed', attempts: 1 });
      expect(receiver.received).toEqual([]);
      const log = await stack
        .http()
        .get(`${BASE}/${encodeId('webhook', endpoint.id)}/deliveries`)
        .set(t.sandbox);
      expect(log.body.data[0]).toMatchObject({ status: 'failed', attemptCount: 1, lastStatusCode: null });
      expect(log.body.data[0].lastError).toMatch(/Target refused: 127\.0\.0\.1 is a private/);
      expect(decodeId('lead', encodeId('lead', lead.id))).toBe(lead.id);
    } finally {
      await receiver.stop();
    }
  });
});

describe('SSRF protection at connect time', () => {
  it('refuses a host name that resolves to loopback when connecting, and connects when allowed', async () => {
    const receiver = await new WebhookReceiver().start();
    try {
      const url = receiver.url('/dns').replace('127.0.0.1', 'localhost');
      const send = (allowPrivate: boolean) => postWebhook({ url, headers: {}, body: '{}', allowPrivate });
      await expect(send(false)).rejects.toBeInstanceOf(TargetRefusedError);
      expect(receiver.received).toEqual([]);
      expect((await send(true)).statusCode).toBe(200);
      expect(receiver.for('/dns')).toHaveLength(1);
    } finally {
      await receiver.stop();
    }
  });
});

describe('tenant isolation', () => {
  it("answers 404 on every webhook route to another tenant's or the other environment's key", async () => {
    const w = (await create({ url: PUBLIC_URL })).body.data;
    await stack.db.query(
      `INSERT INTO events (tenant_id, environment, type, data, dispatched_at) VALUES ($1, 'sandbox', 'lead.deleted', '{}', now()) RETURNING id`,
      [tenant.tenant.id],
    );
    const [event] = await stack.db.query(`SELECT id FROM events WHERE tenant_id = $1 ORDER BY id DESC LIMIT 1`, [tenant.tenant.id]);
    const [delivery] = await stack.db.query(
      `INSERT INTO webhook_deliveries (tenant_id, environment, event_id, endpoint_id, event_type, status) VALUES ($1, 'sandbox', $2, $3, 'lead.deleted', 'failed') RETURNING id`,
      [tenant.tenant.id, event.id, decodeId('webhook', w.id)],
    );
    const d = encodeId('delivery', delivery.id);
    const other = await newTenant(stack.db);
    const calls: [string, string, object?][] = [
      ['get', `${BASE}/${w.id}`],
      ['patch', `${BASE}/${w.id}`, { description: 'x' }],
      ['delete', `${BASE}/${w.id}`],
      ['get', `${BASE}/${w.id}/secret`],
      ['post', `${BASE}/${w.id}/rotate-secret`],
      ['post', `${BASE}/${w.id}/test`],
      ['get', `${BASE}/${w.id}/deliveries`],
      ['post', `${BASE}/${w.id}/recover`, { since: new Date(Date.now() - 86_400_000).toISOString() }],
      ['get', `${BASE}/deliveries/${d}`],
      ['post', `${BASE}/deliveries/${d}/retry`],
    ];
    for (const headers of [other.sandbox, other.live, tenant.live]) {
      for (const [method, url, body] of calls) {
        const req = (stack.http() as unknown as Record<string, (u: string) => import('supertest').Test>)[method](url).set(headers);
        const res = await (body ? req.send(body) : req);
        expect([method, url, res.status]).toEqual([method, url, 404]);
      }
      expect((await stack.http().get(BASE).set(headers)).body.data.map((x: { id: string }) => x.id)).not.toContain(w.id);
    }
    // and the owner still sees it
    expect((await stack.http().get(`${BASE}/deliveries/${d}`).set(tenant.sandbox)).status).toBe(200);
  });
});
