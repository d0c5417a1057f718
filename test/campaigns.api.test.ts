import { SequenceDefinition } from '../db/entities';
import { scoped } from '../db/scoped-repository';
import { decodeId } from '../lib/ids';
import { recordEngagement } from '../domain/engagement/record-engagement';
import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { outboxOf } from './support/events';
import { actionsOnly, branchOnOpen, threeEmails } from './support/sequences';
import { header, SmtpSink, trackingPaths } from './support/smtp-sink';
import { startMailStack } from './support/mail-stack';
import { validLead, type TestStack, type TestTenant } from './support/stack';

/** The campaign API on the shared dev server (real search attributes), sending to a real SMTP server. */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let stop: () => Promise<void>;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'campaigns-api' }));
  await stack.subscribe(tenant);
});
afterAll(() => stop());

const api = () => stack.http();
const THREE_SECONDS = { duration: 0.05, durationUnit: 'minutes' as const };

async function waitFor<T>(fn: () => Promise<T | null | undefined | false>, what: string, ms = 20_000): Promise<T> {
  for (const end = Date.now() + ms; Date.now() < end;) {
    const v = await fn();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function activeCampaign(definition: object, extra: Record<string, unknown> = {}) {
  const workflow = await api().post('/v1/workflows').set(tenant.live).send(definition).expect(201);
  const campaign = await api()
    .post('/v1/campaigns')
    .set(tenant.live)
    .send({ name: 'Test campaign', workflowId: workflow.body.data.id, status: 'active', ...extra })
    .expect(201);
  return campaign.body.data as { id: string; workflowVersion: number };
}

const newLead = async (overrides: Record<string, unknown> = {}) =>
  (await api().post('/v1/leads').set(tenant.live).send(validLead(overrides)).expect(201)).body.data as { id: string; email: string };

const enroll = (campaignId: string, leadIds: string[]) =>
  api().post(`/v1/campaigns/${campaignId}/enrollments`).set(tenant.live).send({ leadIds });

/** Until the lead's enrollment waits on its open condition (its signal window open for opens). */
const untilWaitingForOpen = (leadKey: string | null) =>
  waitFor(
    async () =>
      (
        await stack.db.query(
          `SELECT 1 FROM campaign_enrollments WHERE lead_id = $1 AND engagement_signals_until > now() AND engagement_signal_type = 'email_open'`,
          [leadKey],
        )
      ).length,
    'the enrollment waiting on its open condition',
  );
const handleOf = (campaignId: string, leadId: string) =>
  stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(`campaign/${campaignId}/lead/${leadId}`);

describe('campaigns API', () => {
  it('moves a campaign only through legal transitions and pins the workflow version on activation', async () => {
    const created = await api().post('/v1/campaigns').set(tenant.live).send({ name: 'Spring', type: 'email' }).expect(201);
    const id = created.body.data.id;
    expect(created.body.data).toMatchObject({ name: 'Spring', type: 'email', status: 'draft', workflowVersion: null });
    expect(id).toMatch(/^cmp[A-Za-z0-9]{13,14}$/);

    const noWorkflow = await api().post(`/v1/campaigns/${id}/activate`).set(tenant.live);
    expect([noWorkflow.status, noWorkflow.body.message]).toEqual([409, 'A campaign needs a workflowId before it can be activated']);

    const workflow = await api().post('/v1/workflows').set(tenant.live).send(threeEmails()).expect(201);
    await api().patch(`/v1/campaigns/${id}`).set(tenant.live).send({ workflowId: workflow.body.data.id }).expect(200);
    await api().post(`/v1/campaigns/${id}/pause`).set(tenant.live).expect(409);
    const active = await api().post(`/v1/campaigns/${id}/activate`).set(tenant.live).expect(200);
    expect(active.body.data).toMatchObject({ status: 'active', workflowVersion: 1, triggerType: 'manual' });

    await api().patch(`/v1/workflows/${workflow.body.data.id}`).set(tenant.live).send({ name: 'Renamed' }).expect(200);
    expect((await api().get(`/v1/campaigns/${id}`).set(tenant.live)).body.data.workflowVersion).toBe(1);
    const repin = await api().patch(`/v1/campaigns/${id}`).set(tenant.live).send({ workflowId: workflow.body.data.id });
    expect(repin.status).toBe(200);

    await api().post(`/v1/campaigns/${id}/activate`).set(tenant.live).expect(409);
    await api().post(`/v1/campaigns/${id}/pause`).set(tenant.live).expect(202);
    await api().post(`/v1/campaigns/${id}/pause`).set(tenant.live).expect(409);
    await api().patch(`/v1/campaigns/${id}`).set(tenant.live).send({ status: 'active' }).expect(200);
    await api().delete(`/v1/campaigns/${id}`).set(tenant.live).expect(409);
    const done = await api().post(`/v1/campaigns/${id}/complete`).set(tenant.live).expect(202);
    expect(done.body.data.completedAt).toEqual(expect.any(String));
    await api().post(`/v1/campaigns/${id}/resume`).set(tenant.live).expect(409);
    await api().patch(`/v1/campaigns/${id}`).set(tenant.live).send({ status: 'active' }).expect(409);
    await api().delete(`/v1/campaigns/${id}`).set(tenant.live).expect(200);
  });

  it('refuses to activate a campaign whose stored definition no longer passes validation (422)', async () => {
    const workflow = await api().post('/v1/workflows').set(tenant.live).send(threeEmails()).expect(201);
    const key = decodeId('workflow', workflow.body.data.id) as string;
    const scope = { tenantId: decodeId('tenant', tenant.id) as string, environment: 'live' as const };
    const broken = threeEmails();
    broken.edges.push({ edgeId: 'e7', source: 'done', target: 'nowhere' });
    await scoped(stack.db.manager, SequenceDefinition, scope).updateWhere({ id: key }, { edges: broken.edges as never });
    const campaign = await api()
      .post('/v1/campaigns')
      .set(tenant.live)
      .send({ name: 'Broken', workflowId: workflow.body.data.id })
      .expect(201);
    const res = await api().post(`/v1/campaigns/${campaign.body.data.id}/activate`).set(tenant.live);
    expect(res.status).toBe(422);
    expect(res.body.errors[0].field).toMatch(/^edges\./);
  });

  it('enrolls leads in bulk with a result per lead, one workflow each with search attributes, and unenrolls', async () => {
    const campaign = await activeCampaign(threeEmails({ duration: 1, durationUnit: 'days' }));
    const [a, b, gone] = [await newLead(), await newLead(), await newLead()];
    await api().delete(`/v1/leads/${gone.id}`).set(tenant.live).expect(200);
    const res = await enroll(campaign.id, [a.id, b.id, a.id, gone.id, 'lea_not_an_id']).expect(200);
    expect(res.body.data).toEqual([
      { leadId: a.id, status: 'enrolled' },
      { leadId: b.id, status: 'enrolled' },
      { leadId: gone.id, status: 'not_found' },
      { leadId: 'lea_not_an_id', status: 'not_found' },
    ]);
    expect((await enroll(campaign.id, [a.id]).expect(200)).body.data).toEqual([{ leadId: a.id, status: 'already_enrolled' }]);

    const description = await handleOf(campaign.id, a.id).describe();
    expect(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['TenantId', tenant.id],
        ['Environment', 'live'],
        ['CampaignId', campaign.id],
        ['LeadId', a.id],
      ]),
    );
    expect(JSON.stringify(description.memo)).not.toContain(a.email); // memos carry IDs, not personal data
    await waitFor(async () => smtp.to(a.email).length === 1 && smtp.to(b.email).length === 1, 'the first emails');
    const list = await waitFor(async () => {
      const r = await api().get(`/v1/campaigns/${campaign.id}/enrollments`).set(tenant.live).expect(200);
      return r.body.data.every((e: { progress: { currentNodeId: string } | null }) => e.progress?.currentNodeId === 'wait-1') && r.body;
    }, 'both enrollments to wait');
    expect(list.pagination.total).toBe(2);
    expect(list.data[0]).toMatchObject({
      leadId: a.id,
      status: 'active',
      workflowVersion: 1,
      progress: { currentNodeId: 'wait-1', path: ['start', 'email-1', 'wait-1'], status: 'running' },
    });
    expect(Date.parse(list.data[0].progress.nextWakeAt) - Date.now()).toBeGreaterThan(23 * 3600_000);

    const removed = await api().delete(`/v1/campaigns/${campaign.id}/enrollments/${a.id}`).set(tenant.live).expect(200);
    expect(removed.body.data).toMatchObject({ leadId: a.id, status: 'unenrolled' });
    expect(await handleOf(campaign.id, a.id).result()).toMatchObject({ status: 'stopped', exitReason: 'unenrolled' });
    await api().delete(`/v1/campaigns/${campaign.id}/enrollments/${gone.id}`).set(tenant.live).expect(404);
  });

  it('holds sends while the campaign is paused and sends them after resume', async () => {
    const definition = threeEmails(THREE_SECONDS);
    const campaign = await activeCampaign(definition);
    const lead = await newLead();
    await api().post(`/v1/campaigns/${campaign.id}/pause`).set(tenant.live).expect(202);
    await enroll(campaign.id, [lead.id]).expect(200);
    await new Promise((r) => setTimeout(r, 2_000));
    expect(smtp.to(lead.email)).toHaveLength(0);
    const progress = await handleOf(campaign.id, lead.id).query('progress');
    expect(progress).toMatchObject({ status: 'paused', currentNodeId: 'email-1' });

    await api().post(`/v1/campaigns/${campaign.id}/resume`).set(tenant.live).expect(202);
    await waitFor(async () => smtp.to(lead.email).length === 1, 'the first email after resume');
    await api().post(`/v1/campaigns/${campaign.id}/pause`).set(tenant.live).expect(202);
    await new Promise((r) => setTimeout(r, 4_000));
    expect(smtp.to(lead.email)).toHaveLength(1);
    await api().post(`/v1/campaigns/${campaign.id}/resume`).set(tenant.live).expect(202);
    expect(await handleOf(campaign.id, lead.id).result()).toMatchObject({ status: 'completed' });
    expect(smtp.to(lead.email)).toHaveLength(3);
  });

  it('ends every enrollment when the campaign is completed', async () => {
    const campaign = await activeCampaign(threeEmails({ duration: 1, durationUnit: 'days' }));
    const leads = [await newLead(), await newLead()];
    await enroll(
      campaign.id,
      leads.map((l) => l.id),
    ).expect(200);
    await waitFor(async () => leads.every((l) => smtp.to(l.email).length === 1), 'the first emails');
    await api().post(`/v1/campaigns/${campaign.id}/complete`).set(tenant.live).expect(202);
    for (const lead of leads) {
      expect(await handleOf(campaign.id, lead.id).result()).toMatchObject({ status: 'stopped', exitReason: 'campaign_completed' });
    }
    const list = await api().get(`/v1/campaigns/${campaign.id}/enrollments`).set(tenant.live).expect(200);
    expect(list.body.data.map((e: { status: string }) => e.status)).toEqual(['stopped', 'stopped']);
    await enroll(campaign.id, [(await newLead()).id]).expect(409);
  });

  it('enrolls new leads automatically when the definition starts with lead_created', async () => {
    const campaign = await activeCampaign(threeEmails({ duration: 1, durationUnit: 'days' }, 'lead_created'));
    const lead = await newLead();
    const mail = await waitFor(async () => smtp.to(lead.email)[0], 'the automatic first email');
    expect(header(mail, 'Subject')).toBe('Welcome, Ada');
    const list = await api().get(`/v1/campaigns/${campaign.id}/enrollments`).set(tenant.live).expect(200);
    expect(list.body.data.map((e: { leadId: string }) => e.leadId)).toEqual([lead.id]);
    await api().post(`/v1/campaigns/${campaign.id}/complete`).set(tenant.live).expect(202);
  });

  it('signals engagement events into the enrollment, which takes the true branch, and counts them in the stats', async () => {
    const campaign = await activeCampaign(branchOnOpen());
    const lead = await newLead();
    await enroll(campaign.id, [lead.id]).expect(200);
    await waitFor(async () => smtp.to(lead.email)[0], 'the intro email');
    const event = await api().post('/v1/analytics/events').set(tenant.live).send({ eventType: 'email_open', leadId: lead.id }).expect(201);
    expect(event.body.data).toMatchObject({ type: 'email_open', leadId: lead.id, machine: false });
    expect(event.body.data.id).toMatch(/^eng/); // never a webhook event's ID (evt...)
    // Written in the event's transaction: one entry, naming the event (the response corrects it).
    const audit = await api().get(`/v1/audit-logs?resourceId=${event.body.data.id}`).set(tenant.live).expect(200);
    expect(audit.body.data).toMatchObject([
      { action: 'POST /v1/analytics/events', statusCode: 201, requestId: event.headers['x-request-id'] },
    ]);
    const result = await handleOf(campaign.id, lead.id).result();
    expect(result.path).toEqual(['start', 'intro', 'opened:true', 'yes-email', 'done']);

    const stats = await api().get(`/v1/campaigns/${campaign.id}/stats`).set(tenant.live).expect(200);
    expect(stats.body.data).toMatchObject({ enrolled: 1, active: 0, completed: 1, sent: 2, delivered: 2, opened: 0 });
    const bad = await api().post('/v1/analytics/events').set(tenant.live).send({ eventType: 'email_opened' });
    expect([bad.status, bad.body.errors[0].field]).toEqual([422, 'eventType']);
    // The live lead, named from the sandbox (another scope), is not found there.
    const elsewhere = await api().post('/v1/analytics/events').set(tenant.sandbox).send({ eventType: 'email_open', leadId: lead.id });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.errors).toEqual([expect.objectContaining({ field: 'leadId', message: 'Lead not found' })]);
  });

  it('signals the enrollment an event names by workflowExecutionId, only from its own tenant and environment', async () => {
    const campaign = await activeCampaign(branchOnOpen());
    const lead = await newLead();
    await enroll(campaign.id, [lead.id]).expect(200);
    await waitFor(async () => smtp.to(lead.email)[0], 'the intro email');
    const handle = handleOf(campaign.id, lead.id);
    // The same ID named from the sandbox (another scope) is stored as given and signals nothing (a
    // click, which the open condition would take in without deciding, so a signal would show below).
    await api()
      .post('/v1/analytics/events')
      .set(tenant.sandbox)
      .send({ eventType: 'link_click', workflowExecutionId: handle.workflowId })
      .expect(201);
    await api()
      .post('/v1/analytics/events')
      .set(tenant.live)
      .send({ eventType: 'email_open', workflowExecutionId: handle.workflowId })
      .expect(201);
    expect((await handle.result()).path).toEqual(['start', 'intro', 'opened:true', 'yes-email', 'done']);
    const { events } = await handle.fetchHistory();
    expect(events?.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(1);
  });

  it('signals a waiting enrollment only the engagement its condition waits for', async () => {
    const campaign = await activeCampaign(branchOnOpen());
    const lead = await newLead();
    const leadKey = decodeId('lead', lead.id);
    await enroll(campaign.id, [lead.id]).expect(200);
    await untilWaitingForOpen(leadKey);
    // A click cannot decide an open condition: stored, not signalled.
    await api().post('/v1/analytics/events').set(tenant.live).send({ eventType: 'link_click', leadId: lead.id }).expect(201);
    await api().post('/v1/analytics/events').set(tenant.live).send({ eventType: 'email_open', leadId: lead.id }).expect(201);
    const handle = handleOf(campaign.id, lead.id);
    expect((await handle.result()).path).toEqual(['start', 'intro', 'opened:true', 'yes-email', 'done']);
    const { events } = await handle.fetchHistory();
    const signals = events?.flatMap((e) =>
      e.workflowExecutionSignaledEventAttributes ? [e.workflowExecutionSignaledEventAttributes] : [],
    );
    expect(signals?.map((s) => s.signalName)).toEqual(['engagement']);
    const stored = await api().get(`/v1/analytics/events?leadId=${lead.id}`).set(tenant.live).expect(200);
    expect(stored.body.data.map((e: { type: string }) => e.type).sort()).toEqual(['email_open', 'link_click']);
  });

  it("gives the tenant's in-flight slot back once an event is stored and only its signals are left", async () => {
    const campaign = await activeCampaign(branchOnOpen());
    const lead = await newLead();
    const leadKey = decodeId('lead', lead.id);
    await enroll(campaign.id, [lead.id]).expect(200);
    await untilWaitingForOpen(leadKey);
    const scope = { tenantId: tenant.tenant.id, environment: 'live' as const };
    const storedWhenReleased: Promise<{ n: string }[]>[] = [];
    const deps = {
      db: stack.db,
      workflows: stack.workflows,
      // Read on another connection at the moment of release: the event must be committed by then.
      beforeLongWait: () =>
        void storedWhenReleased.push(stack.db.query('SELECT count(*) AS n FROM engagement_events WHERE lead_id = $1', [leadKey])),
    };
    const event = { leadId: leadKey, message: null, workflowExecutionId: null, occurredAt: new Date(), machine: false };
    await recordEngagement(deps, scope, { ...event, type: 'email_open' });
    expect(storedWhenReleased).toHaveLength(1);
    expect(await storedWhenReleased[0]).toEqual([{ n: '1' }]);
    expect((await handleOf(campaign.id, lead.id).result()).path).toContain('opened:true');

    // Nothing waits on this lead now: no signal, so the request keeps its slot to the end.
    await recordEngagement(deps, scope, { ...event, type: 'email_open' });
    expect(storedWhenReleased).toHaveLength(1);
  });

  it('stops emailing a lead who followed the unsubscribe link', async () => {
    const campaign = await activeCampaign(threeEmails(THREE_SECONDS));
    const lead = await newLead();
    await enroll(campaign.id, [lead.id]).expect(200);
    const mail = await waitFor(async () => smtp.to(lead.email)[0], 'the first email');
    await api().get(trackingPaths(mail, 'u')[0]).expect(200);
    const result = await handleOf(campaign.id, lead.id).result();
    expect(result).toMatchObject({ status: 'exited', exitReason: 'unsubscribed' });
    expect(smtp.to(lead.email)).toHaveLength(1);
    expect((await enroll(campaign.id, [lead.id]).expect(200)).body.data[0].status).toBe('unsubscribed');
    const stats = await api().get(`/v1/campaigns/${campaign.id}/stats`).set(tenant.live).expect(200);
    expect(stats.body.data).toMatchObject({ sent: 1, unsubscribed: 1 });
    expect(stats.body.data.rates.unsubscribe).toBe(1);
  });

  it('ends the enrollments of a deleted lead and of a merged-away duplicate at once, not at their next step days later', async () => {
    const campaign = await activeCampaign(threeEmails());
    const [deleted, duplicate, survivor] = [await newLead(), await newLead(), await newLead()];
    await enroll(campaign.id, [deleted.id, duplicate.id, survivor.id]).expect(200);
    for (const lead of [deleted, duplicate, survivor]) await waitFor(async () => smtp.to(lead.email)[0], 'the first email');

    await api().delete(`/v1/leads/${deleted.id}`).set(tenant.live).expect(200);
    await api().post(`/v1/leads/${survivor.id}/merge`).set(tenant.live).send({ duplicateId: duplicate.id }).expect(200);
    // Each run would otherwise sleep two days before its next step found the lead gone.
    await expect(handleOf(campaign.id, deleted.id).result()).resolves.toMatchObject({ status: 'exited', exitReason: 'lead_deleted' });
    await expect(handleOf(campaign.id, duplicate.id).result()).resolves.toMatchObject({ status: 'exited', exitReason: 'lead_merged' });
    const enrollments = (await api().get(`/v1/campaigns/${campaign.id}/enrollments`).set(tenant.live)).body.data;
    const statusOf = (leadId: string) => enrollments.find((e: { leadId: string }) => e.leadId === leadId);
    expect(statusOf(deleted.id)).toMatchObject({ status: 'exited', exitReason: 'lead_deleted' });
    expect(statusOf(duplicate.id)).toMatchObject({ status: 'exited', exitReason: 'lead_merged' });
    expect(statusOf(survivor.id)).toMatchObject({ status: 'active' });
    expect((await handleOf(campaign.id, survivor.id).describe()).status.name).toBe('RUNNING');
  });

  it('runs action nodes once: creates a task for the lead (task.created), changes the score and status (lead.updated)', async () => {
    const campaign = await activeCampaign(actionsOnly());
    const lead = await newLead({ score: 10, lastName: 'Actionable' });
    await enroll(campaign.id, [lead.id]).expect(200);
    await handleOf(campaign.id, lead.id).result();
    const tasks = await api().get(`/v1/tasks?leadId=${lead.id}`).set(tenant.live);
    expect(tasks.body.data).toHaveLength(1);
    expect(tasks.body.data[0]).toMatchObject({ title: 'Call {{firstName}} back', status: 'pending', leadId: lead.id });
    expect((await api().get(`/v1/leads/${lead.id}`).set(tenant.live)).body.data).toMatchObject({ score: 25, status: 'contacted' });
    // Integrations hear of what the campaign changed, and search shows it.
    const events = (await outboxOf(stack.db, tenant, 'live', ['task.created', 'lead.updated'])).filter(
      (e) => e.data.leadId === lead.id || e.data.taskId === tasks.body.data[0].id,
    );
    expect(events).toEqual([
      { type: 'task.created', data: { taskId: tasks.body.data[0].id, title: 'Call {{firstName}} back', assigneeId: expect.any(String) } },
      { type: 'lead.updated', data: { leadId: lead.id, changes: { score: 25 } } },
      { type: 'lead.updated', data: { leadId: lead.id, changes: { status: 'contacted' } } },
    ]);
    const found = await api().get('/v1/search?q=actionable&type=lead').set(tenant.live);
    expect(found.body.data.map((d: { data: { status: string } }) => d.data.status)).toEqual(['contacted']);
  });

  it('leaves the lead as it is when the status an action sets was deleted after the definition was saved', async () => {
    const vip = (
      await api()
        .post('/v1/config/statuses')
        .set(tenant.live)
        .send({ entityType: 'lead', code: 'vip', name: 'VIP', color: 'purple', sortOrder: 9 })
        .expect(201)
    ).body.data;
    const definition = actionsOnly();
    definition.nodes[3].data = { actionType: 'update_lead_status', status: 'vip' };
    const campaign = await activeCampaign(definition);
    await api().delete(`/v1/config/statuses/${vip.id}`).set(tenant.live).expect(200);
    const lead = await newLead({ score: 10 });
    await enroll(campaign.id, [lead.id]).expect(200);
    await handleOf(campaign.id, lead.id).result();
    expect((await api().get(`/v1/leads/${lead.id}`).set(tenant.live)).body.data).toMatchObject({ score: 25, status: 'new' });
  });
});
