import type { DataSource } from 'typeorm';
import { SequenceDefinition as DefinitionSchema } from '../../contracts/sequence-definition';
import { Campaign, CampaignEnrollment, Lead } from '../../db/entities';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { createTenant } from '../../domain/tenants';
import { enrollmentWorkflowId } from '../../domain/campaigns/start-enrollment';
import type { CampaignSequenceInput } from '../../workflows/campaign-sequence';

let n = 0;

/**
 * An active campaign with one enrolled lead, written straight to the database, for workflow tests
 * that start the sequence themselves (the time-skipping server has no search attributes).
 */
export async function seedEnrollment(db: DataSource, definition: unknown, scope?: TenantScope) {
  const graph = DefinitionSchema.parse(definition);
  if (!scope) {
    const created = await createTenant(db, { name: `Campaign workflow tenant ${process.pid}-${++n}-${Date.now()}`, plan: 'enterprise' });
    scope = { tenantId: created.tenant.id, environment: 'live' };
  }
  const email = `seq-${Math.random().toString(36).slice(2)}@example.com`;
  const lead = await scoped(db.manager, Lead, scope).insert({
    email,
    emailNormalized: email,
    firstName: 'Grace',
    lastName: 'Hopper',
    customFields: {},
  });
  const campaign = await scoped(db.manager, Campaign, scope).insert({ name: graph.name, status: 'active', workflowVersion: 1 });
  const enrollment = await scoped(db.manager, CampaignEnrollment, scope).insert({
    campaignId: campaign.id,
    leadId: lead.id,
    workflowId: enrollmentWorkflowId(campaign.id, lead.id),
    workflowVersion: 1,
  });
  const input: CampaignSequenceInput = {
    ...scope,
    campaignId: campaign.id,
    leadId: lead.id,
    enrollmentId: enrollment.id,
    graph: { nodes: graph.nodes, edges: graph.edges },
  };
  return { scope, lead, campaign, enrollment, input };
}
