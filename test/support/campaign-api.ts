import request from 'supertest';
import type { TestTenant } from './stack';
import { validLead } from './stack';

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
