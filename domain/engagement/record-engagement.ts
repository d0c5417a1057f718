import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { CampaignEnrollment, EngagementEvent, Lead, Message } from '../../db/entities';
import type { EngagementType } from '../../db/entities/engagement-event';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { engagementSignal, type EngagementKind } from '../../workflows/campaign-signals';
import { signalWorkflows } from '../campaigns/signal-enrollments';

export interface EngagementInput {
  type: EngagementType;
  /** Database keys, already checked to belong to the scope (or null). */
  leadId: string | null;
  message: Message | null;
  workflowExecutionId: string | null;
  occurredAt: Date;
  machine: boolean;
  details?: Record<string, unknown>;
}

/**
 * Stores an engagement event, applies what it implies (a bounce marks the lead bounced) and signals
 * the enrollments it concerns: the one named by workflowExecutionId, else the message's campaign
 * enrollment, else every active enrollment of the lead. Machine events are stored, not signalled.
 */
export async function recordEngagement(
  db: DataSource,
  client: Client,
  scope: TenantScope,
  input: EngagementInput,
): Promise<EngagementEvent> {
  const leadId = input.leadId ?? input.message?.leadId ?? null;
  const event = await scoped(db.manager, EngagementEvent, scope).insert({
    type: input.type,
    leadId,
    messageId: input.message?.id ?? null,
    campaignId: input.message?.campaignId ?? null,
    workflowExecutionId: input.workflowExecutionId,
    occurredAt: input.occurredAt,
    machine: input.machine,
    details: input.details ?? {},
  });
  if (leadId && input.type === 'email_bounce') {
    await scoped(db.manager, Lead, scope).updateWhere({ id: leadId }, { bouncedAt: input.occurredAt });
  }
  if (!input.machine && input.type !== 'unsubscribe') {
    const workflowIds = await targets(db, scope, leadId, input);
    await signalWorkflows(client, workflowIds, engagementSignal, {
      type: input.type as EngagementKind,
      ...(input.message ? { messageId: input.message.id } : {}),
      at: input.occurredAt.toISOString(),
    });
  }
  return event;
}

async function targets(db: DataSource, scope: TenantScope, leadId: string | null, input: EngagementInput): Promise<string[]> {
  const enrollments = scoped(db.manager, CampaignEnrollment, scope);
  if (input.workflowExecutionId) {
    // Only a workflow that is an enrollment of this tenant: the ID is never signalled blindly.
    const named = await enrollments.findOne({ workflowId: input.workflowExecutionId, status: 'active' });
    return named ? [named.workflowId] : [];
  }
  if (!leadId) return [];
  const where = input.message?.campaignId
    ? { leadId, campaignId: input.message.campaignId, status: 'active' as const }
    : { leadId, status: 'active' as const };
  return (await enrollments.find({ where })).map((e) => e.workflowId);
}
