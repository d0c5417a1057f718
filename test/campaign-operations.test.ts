import { Campaign, CampaignEnrollment, Lead } from '../db/entities';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { pinnedGraph, startEnrollmentWorkflow, enrollmentWorkflowId } from '../domain/campaigns/start-enrollment';
import { createDomainContext } from '../domain/context';
import { forEachConcurrently } from '../lib/concurrency';
import { decodeId } from '../lib/ids';
import { progressQuery } from '../workflows/campaign-signals';
import { waitOnly } from './support/sequences';
import { newTenant, startStack, type TestStack, type TestTenant } from './support/stack';

/** Campaign-wide signals run as a workflow after a 202, not inside the request: a request's work does not grow with the enrollments. */
let stack: TestStack;
let tenant: TestTenant;
beforeAll(async () => {
  stack = await startStack({ poolSize: 8 });
  tenant = await newTenant(stack.db);
});
afterAll(() => stack.stop());

const ENROLLMENTS = 2_000;

/**
 * An active campaign with `count` enrolled leads: rows written in bulk, and one real (sleeping)
 * campaign-sequence workflow per enrollment started through the client, a few dozen at a time.
 */
async function campaignWithEnrollments(count: number) {
  const api = () => stack.http();
  const workflow = (await api().post('/v1/workflows').set(tenant.live).send(waitOnly()).expect(201)).body.data.id;
  const created = (
    await api().post('/v1/campaigns').set(tenant.live).send({ name: 'Big', workflowId: workflow, status: 'active' }).expect(201)
  ).body.data;
  const scope: TenantScope = { tenantId: decodeId('tenant', tenant.id) as string, environment: 'live' };
  const campaign = (await scoped(stack.db.manager, Campaign, scope).findById(decodeId('campaign', created.id) as string))!;
  const run = `${Date.now()}`;
  const leads = await scoped(stack.db.manager, Lead, scope).insertMany(
    Array.from({ length: count }, (_, i) => {
      const email = `bulk-${run}-${i}@example.com`;
      return { email, emailNormalized: email, firstName: 'Bulk', lastName: `Lead ${i}`, customFields: {} };
    }),
  );
  const enrollments = await scoped(stack.db.manager, CampaignEnrollment, scope).insertMany(
    leads.map((lead) => ({
      campaignId: campaign.id,
      leadId: lead.id,
      workflowId: enrollmentWorkflowId(campaign.id, lead.id),
      workflowVersion: 1,
    })),
  );
  const graph = await pinnedGraph(createDomainContext({ db: stack.db, workflows: stack.workflows, scope, actorUserId: '0' }), campaign);
  const byId = new Map(leads.map((l) => [l.id, l]));
  await forEachConcurrently(enrollments, 20, async (enrollment) => {
    // A loaded dev server refuses a start now and then (its per-namespace rate): try again.
    for (let attempt = 1; ; attempt++) {
      try {
        await startEnrollmentWorkflow(stack.workflows, scope, campaign, byId.get(enrollment.leadId)!, enrollment, graph);
        return;
      } catch (err) {
        if (attempt >= 5) throw err;
        await new Promise((r) => setTimeout(r, 500 * attempt));
      }
    }
  });
  return { id: created.id as string, enrollments };
}

/** How long an operation may go without finishing another page of enrollments (500) before the wait gives up. */
const STALLED_MS = 120_000;

/**
 * The operation once it is no longer running. The guard is against a stall, not a slow machine: a
 * fan-out that keeps processing enrollments is waited for (CI's loaded dev server once took over
 * 100 s for the 2,000 signals), one that stops moving fails with where it stopped.
 */
async function operationWhenDone(id: string) {
  let last = { processed: -1, at: Date.now() };
  for (;;) {
    const res = await stack.http().get(`/v1/operations/${id}`).set(tenant.live).expect(200);
    const op = res.body.data as { status: string; processed: number; total: number; finishedAt: string | null };
    if (op.status !== 'running') return op;
    if (op.processed !== last.processed) last = { processed: op.processed, at: Date.now() };
    else if (Date.now() - last.at > STALLED_MS)
      throw new Error(`operation ${id} stalled at ${op.processed} of ${op.total} enrollments for ${STALLED_MS / 1000} s`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** gRPC's DEADLINE_EXCEEDED, as the Temporal client's errors carry it in their cause. */
const DEADLINE_EXCEEDED = 4;

/**
 * An enrollment workflow's status by query. A query the worker did not take in time is asked again:
 * the worker replays each workflow its cache evicted before answering, and on a loaded CI machine
 * one of 2,000 such queries once timed out in the server's queue ("query timed out before a worker
 * could process it"), which says nothing about the signal.
 */
async function enrollmentStatus(workflowId: string): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    try {
      return (await stack.client.workflow.getHandle(workflowId).query(progressQuery)).status;
    } catch (err) {
      if ((err as { cause?: { code?: number } }).cause?.code !== DEADLINE_EXCEEDED || attempt >= 3) throw err;
    }
  }
}

describe('campaign operations', () => {
  it(`pauses a campaign of ${ENROLLMENTS} enrollments with a 202 and an operation that signals every one of them`, async () => {
    const campaign = await campaignWithEnrollments(ENROLLMENTS);

    const paused = await stack.http().post(`/v1/campaigns/${campaign.id}/pause`).set(tenant.live).expect(202);
    // Answered before the fan-out did anything: the operation is running, nothing processed yet.
    expect(paused.body.data).toMatchObject({ id: campaign.id, status: 'paused' });
    expect(paused.body.data.operation).toMatchObject({
      type: 'campaign.pause',
      status: 'running',
      total: ENROLLMENTS,
      processed: 0,
      campaignId: campaign.id,
    });
    expect(paused.body.data.operation.workflowId).toBe(`campaign-transition/${campaign.id}/${paused.body.data.operation.id}`);

    const done = await operationWhenDone(paused.body.data.operation.id);
    expect(done).toMatchObject({ status: 'succeeded', total: ENROLLMENTS, processed: ENROLLMENTS });
    expect(done.finishedAt).toEqual(expect.any(String));

    // Every enrollment's workflow heard the pause.
    const statuses = new Map<string, number>();
    await forEachConcurrently(campaign.enrollments, 10, async (e) => {
      const status = await enrollmentStatus(e.workflowId);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    });
    expect(Object.fromEntries(statuses)).toEqual({ paused: ENROLLMENTS });
  }, 480_000);

  it('completes a campaign with a 202 and an operation that stops every enrollment', async () => {
    const campaign = await campaignWithEnrollments(3);
    const completed = await stack.http().post(`/v1/campaigns/${campaign.id}/complete`).set(tenant.live).expect(202);
    expect(completed.body.data).toMatchObject({
      status: 'completed',
      operation: { type: 'campaign.complete', status: 'running', total: 3 },
    });
    expect(await operationWhenDone(completed.body.data.operation.id)).toMatchObject({ status: 'succeeded', processed: 3 });
    for (const e of campaign.enrollments) {
      expect(await stack.client.workflow.getHandle(e.workflowId).result()).toMatchObject({
        status: 'stopped',
        exitReason: 'campaign_completed',
      });
    }
  });

  it('resumes after a pause in order: the enrollment ends up running', async () => {
    const campaign = await campaignWithEnrollments(3);
    const pause = await stack.http().post(`/v1/campaigns/${campaign.id}/pause`).set(tenant.live).expect(202);
    const resume = await stack.http().post(`/v1/campaigns/${campaign.id}/resume`).set(tenant.live).expect(202);
    expect(resume.body.data).toMatchObject({ status: 'active', operation: { type: 'campaign.resume' } });
    await operationWhenDone(pause.body.data.operation.id);
    await operationWhenDone(resume.body.data.operation.id);
    for (const e of campaign.enrollments) {
      expect((await stack.client.workflow.getHandle(e.workflowId).query(progressQuery)).status).toBe('running');
    }
    await stack.http().post(`/v1/campaigns/${campaign.id}/complete`).set(tenant.live).expect(202);
  });

  it("answers 404 for another tenant's operation", async () => {
    const campaign = await campaignWithEnrollments(1);
    const pause = await stack.http().post(`/v1/campaigns/${campaign.id}/pause`).set(tenant.live).expect(202);
    const other = await newTenant(stack.db);
    await stack.http().get(`/v1/operations/${pause.body.data.operation.id}`).set(other.live).expect(404);
    await stack.http().get(`/v1/operations/${pause.body.data.operation.id}`).set(tenant.sandbox).expect(404);
  });
});
