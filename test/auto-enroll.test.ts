import { writeFileSync } from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { createApp, flushApp } from '../api/app';
import { decodeId, encodeId } from '../lib/ids';
import { WorkflowStarter } from '../lib/temporal/workflow-starter';
import { autoEnrollWorkflow } from '../workflows/auto-enroll';
import { autoEnrollSweepWorkflow } from '../workflows/auto-enroll-sweep';
import { autoEnrollmentsMade, triggeredCampaign } from './support/campaign-api';
import { historyToObject } from './support/history';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const pendingOf = async (t: TestTenant): Promise<{ id: string; trigger: string; lead_ids: string[]; campaign_ids: string[] }[]> =>
  stack.db.query('SELECT id, trigger, lead_ids, campaign_ids FROM pending_enrollments WHERE tenant_id = $1 ORDER BY id', [t.tenant.id]);

/** An API whose background starts are all dropped, as when its process dies right after a commit. */
function apiThatLosesStarts() {
  const workflows = new WorkflowStarter(stack.client, stack.taskQueue, { capacity: 0 });
  const app = createApp({ db: stack.db, workflows, webhooks: { allowPrivateTargets: true } });
  return { http: () => request.agent(app), close: () => flushApp(app) };
}

describe('automatic enrollment, made after the answer', () => {
  it('enrolls a new lead into lead_created campaigns from an auto-enroll workflow an operator can find', async () => {
    const t = await newTenant(stack.db);
    const campaign = await triggeredCampaign(stack.http, t.live, 'lead_created', 'Welcome');
    const lead = (await stack.http().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data;

    const run = await waitUntil(async () => {
      for await (const w of stack.client.workflow.list({ query: `WorkflowType = 'autoEnrollWorkflow' AND LeadId = '${lead.id}'` }))
        return w;
      return null;
    }, 'the auto-enroll workflow in the visibility store');
    expect(run.workflowId).toMatch(/^auto-enroll\/pen/);
    const handle = stack.client.workflow.getHandle(run.workflowId);
    expect(await handle.result()).toEqual({ enrolled: 1 });
    const description = await handle.describe();
    expect(description.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['TenantId', t.id],
        ['Environment', 'live'],
        ['LeadId', lead.id],
      ]),
    );
    expect(description.memo).toEqual({ summary: `Enrolls lead ${lead.id} in 1 lead_created campaign(s)` });
    expect(await campaign.enrolledLeadIds()).toEqual([lead.id]);
    expect(await pendingOf(t)).toEqual([]); // removed once made
    await campaign.complete();

    if (process.env.RECORD_HISTORIES) {
      const history = await handle.fetchHistory();
      writeFileSync(path.join(__dirname, 'histories', 'auto-enroll.json'), JSON.stringify(historyToObject(history), null, 1));
    }
  });

  it('records nothing for a write that triggers no campaign', async () => {
    const t = await newTenant(stack.db);
    const campaign = await triggeredCampaign(stack.http, t.live, 'lead_status_changed', 'Status follow-up');
    const lead = (await stack.http().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data;
    await stack.http().patch(`/v1/leads/${lead.id}`).set(t.live).send({ firstName: 'Renamed' }).expect(200);
    // Both writes committed before they answered: a pending enrollment would be there by now.
    expect(await pendingOf(t)).toEqual([]);
    expect(await campaign.enrolledLeadIds()).toEqual([]);
    await campaign.complete();
  });

  it('enrolls on a status change and on a form submission', async () => {
    const t = await newTenant(stack.db);
    const onStatus = await triggeredCampaign(stack.http, t.live, 'lead_status_changed', 'Status follow-up');
    const onForm = await triggeredCampaign(stack.http, t.live, 'form_submitted', 'Thanks for asking');
    const lead = (await stack.http().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data;
    await stack.http().patch(`/v1/leads/${lead.id}`).set(t.live).send({ status: 'contacted' }).expect(200);
    const form = (
      await stack
        .http()
        .post('/v1/forms')
        .set(t.live)
        .send({ name: 'Contact', fields: [{ name: 'email', label: 'Email', type: 'email', required: true, mapsTo: 'email' }] })
        .expect(201)
    ).body.data;
    const submitted = await stack.http().post(form.submitPath).send({ email: 'asked@example.com' }).expect(201);

    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect(await onStatus.enrolledLeadIds()).toEqual([lead.id]);
    expect(await onForm.enrolledLeadIds()).toEqual([submitted.body.data.leadId]);
    await onStatus.complete();
    await onForm.complete();
  });

  it('enrolls a lead its conversion qualified, and search shows it qualified, as after a PATCH of its status', async () => {
    const t = await newTenant(stack.db);
    const onStatus = await triggeredCampaign(stack.http, t.live, 'lead_status_changed', 'Status follow-up');
    const lead = (
      await stack
        .http()
        .post('/v1/leads')
        .set(t.live)
        .send(validLead({ lastName: 'Convertible' }))
        .expect(201)
    ).body.data;
    await stack.http().post('/v1/opportunities/convert').set(t.live).send({ leadId: lead.id, value: 500 }).expect(201);

    await autoEnrollmentsMade(stack.db, t.tenant.id);
    expect(await onStatus.enrolledLeadIds()).toEqual([lead.id]);
    const found = await stack.http().get('/v1/search?q=convertible&type=lead').set(t.live);
    expect(found.body.data.map((d: { data: { status: string } }) => d.data.status)).toEqual(['qualified']);
    await onStatus.complete();
  });

  it('keeps an enrollment whose start was lost, and the sweep makes it', async () => {
    const t = await newTenant(stack.db);
    const other = await newTenant(stack.db);
    const campaign = await triggeredCampaign(stack.http, t.live, 'lead_created', 'Welcome');
    const api = apiThatLosesStarts();
    try {
      const lead = (await api.http().post('/v1/leads').set(t.live).send(validLead()).expect(201)).body.data;
      const [pending] = await pendingOf(t);
      expect(pending).toMatchObject({
        trigger: 'lead_created',
        lead_ids: [decodeId('lead', lead.id)],
        campaign_ids: [decodeId('campaign', campaign.id)],
      });
      expect(await campaign.enrolledLeadIds()).toEqual([]);

      // Another tenant's reference to the row reaches nothing: the activity reads within its scope.
      const foreign = await stack.client.workflow.execute(autoEnrollWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `auto-enroll-foreign-${Date.now()}`,
        args: [{ tenantId: other.tenant.id, environment: 'live', pendingId: pending.id }],
      });
      expect(foreign).toEqual({ enrolled: 0 });
      expect(await pendingOf(t)).toHaveLength(1);

      // Old enough for the sweep, and the oldest there is: a sweep of one is a sweep of it (the
      // database is shared with the other test files, whose young rows their own workflows make).
      await stack.db.query(`UPDATE pending_enrollments SET created_at = now() - interval '10 years' WHERE id = $1`, [pending.id]);
      const swept = await stack.client.workflow.execute(autoEnrollSweepWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `auto-enroll-sweep-test-${Date.now()}`,
        args: [{ minAgeMs: 60_000, limit: 1 }],
      });
      expect(swept).toEqual({ started: 1 });
      const made = await stack.client.workflow.getHandle(`auto-enroll/${encodeId('pendingEnrollment', pending.id)}`).result();
      expect(made).toEqual({ enrolled: 1 });
      expect(await campaign.enrolledLeadIds()).toEqual([lead.id]);
      expect(await pendingOf(t)).toEqual([]);
    } finally {
      await api.close();
    }
    await campaign.complete();
  });

  it('skips a campaign that stopped taking leads before the enrollment was made', async () => {
    const t = await newTenant(stack.db);
    const campaign = await triggeredCampaign(stack.http, t.live, 'lead_created', 'Welcome');
    const api = apiThatLosesStarts();
    try {
      await api.http().post('/v1/leads').set(t.live).send(validLead()).expect(201);
      const [pending] = await pendingOf(t);
      await campaign.complete();
      const made = await stack.client.workflow.execute(autoEnrollWorkflow, {
        taskQueue: stack.taskQueue,
        workflowId: `auto-enroll/${encodeId('pendingEnrollment', pending.id)}`,
        args: [{ tenantId: t.tenant.id, environment: 'live', pendingId: pending.id }],
      });
      expect(made).toEqual({ enrolled: 0 }); // done, not retried forever
      expect(await pendingOf(t)).toEqual([]);
      expect(await campaign.enrolledLeadIds()).toEqual([]);
    } finally {
      await api.close();
    }
  });
});
