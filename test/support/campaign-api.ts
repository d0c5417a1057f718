import request from 'supertest';
import type { DataSource } from 'typeorm';
import type { TestTenant } from './stack';
import { validLead } from './stack';
import { threeEmails } from './sequences';
import { waitUntil } from './wait-until';

export type Lead = { id: string; email: string };

/** Campaign set-up through a running API (a child process in the reliability suite) over real HTTP. */
export function campaignApi(baseUrl: string, tenant: TestTenant) {
  const api = () => request(baseUrl);
  return {
    async activeCampaign(definition: object): Promise<{ id: string }> {
      const workflow = await api().post('/v1/workflows').set(tenant.live).send(definition).expect(201);
      const campaign = await api()
        .post('/v1/campaigns')
        .set(tenant.live)
        .send({ name: 'Reliability campaign', workflowId: workflow.body.data.id, status: 'active' })
        .expect(201);
      return campaign.body.data;
    },
    async leads(count: number): Promise<Lead[]> {
      const created: Lead[] = [];
      for (let i = 0; i < count; i++)
        created.push((await api().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data);
      return created;
    },
    enroll: (campaignId: string, leads: Lead[]) =>
      api()
        .post(`/v1/campaigns/${campaignId}/enrollments`)
        .set(tenant.live)
        .send({ leadIds: leads.map((l) => l.id) }),
    /** Enrollments with their progress (read from the running workflows, so a worker must be up). */
    async enrollments(
      campaignId: string,
    ): Promise<{ leadId: string; status: string; progress: { currentNodeId: string | null; nextWakeAt: string | null } | null }[]> {
      return (await api().get(`/v1/campaigns/${campaignId}/enrollments?limit=100`).set(tenant.live).expect(200)).body.data;
    },
  };
}

/**
 * An active campaign whose three-email sequence starts on `trigger`, made through `http` with the
 * tenant's `headers`, and a way to read which leads it has enrolled.
 */
export async function triggeredCampaign(
  http: () => request.Agent,
  headers: Record<string, string>,
  trigger: string,
  name = 'Triggered campaign',
) {
  const workflow = await http().post('/v1/workflows').set(headers).send(threeEmails(undefined, trigger)).expect(201);
  const campaign = (
    await http().post('/v1/campaigns').set(headers).send({ name, workflowId: workflow.body.data.id, status: 'active' }).expect(201)
  ).body.data as { id: string };
  return {
    id: campaign.id,
    enrolledLeadIds: async (): Promise<string[]> =>
      (await http().get(`/v1/campaigns/${campaign.id}/enrollments`).set(headers).expect(200)).body.data.map(
        (e: { leadId: string }) => e.leadId,
      ),
    complete: () => http().post(`/v1/campaigns/${campaign.id}/complete`).set(headers).expect(202),
  };
}

/**
 * Waits until the tenant's automatic enrollments have all been made: each lead write that triggers
 * campaigns records a pending enrollment, which its auto-enroll workflow removes once done.
 */
export async function autoEnrollmentsMade(db: DataSource, tenantId: string): Promise<void> {
  await waitUntil(async () => {
    const [row] = await db.query('SELECT count(*)::int AS n FROM pending_enrollments WHERE tenant_id = $1', [tenantId]);
    return row.n === 0;
  }, 'the pending automatic enrollments to be made');
}
