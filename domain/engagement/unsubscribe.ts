import { Message } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { applySuppression, type SuppressionDeps } from '../communications/apply-suppression';
import { recordEngagement } from './record-engagement';

/**
 * An unsubscribe through the signed link of `messageId`. The address is suppressed, not only this
 * lead: a duplicate lead with it is never emailed either, and the running enrollments of every
 * lead with it end now. The first unsubscribe of the message's lead is recorded as an engagement
 * event whoever clicked, since it took effect. A message that no longer exists changes nothing.
 */
export async function unsubscribeByMessage(
  deps: SuppressionDeps,
  scope: TenantScope,
  messageId: string,
  userAgent: string | undefined,
): Promise<void> {
  const message = await new ScopedData(deps.db.manager, scope).repo(Message).findById(messageId);
  if (!message) return;
  const now = new Date();
  const marked = await applySuppression(deps, scope, { address: message.to, reason: 'unsubscribed', at: now, leadId: message.leadId });
  if (!message.leadId || !marked.includes(message.leadId)) return;
  await recordEngagement(deps, scope, {
    type: 'unsubscribe',
    leadId: message.leadId,
    message,
    workflowExecutionId: null,
    occurredAt: now,
    machine: false,
    details: { userAgent: userAgent?.slice(0, 300) ?? null },
  });
}
