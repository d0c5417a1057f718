import type { Client } from '@temporalio/client';
import type { DataSource } from 'typeorm';
import { IsNull } from 'typeorm';
import { Lead, Message } from '../../db/entities';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { suppressAddress } from '../communications/email-suppressions';
import { recordEngagement } from './record-engagement';

/**
 * An unsubscribe through the signed link of `messageId`: the address is suppressed (not only this
 * lead: a duplicate lead with it is never emailed either), the lead is marked unsubscribed, and the
 * first unsubscribe of a lead is recorded as an engagement event whoever clicked, since it took
 * effect. A message that no longer exists changes nothing.
 */
export async function unsubscribeByMessage(
  db: DataSource,
  client: Client,
  scope: TenantScope,
  messageId: string,
  userAgent: string | undefined,
): Promise<void> {
  const data = new ScopedData(db.manager, scope);
  const message = await data.repo(Message).findById(messageId);
  if (!message) return;
  await suppressAddress(data, message.to, 'unsubscribed');
  if (!message.leadId) return;
  const now = new Date();
  const changed = await data.repo(Lead).updateWhere({ id: message.leadId, unsubscribedAt: IsNull() }, { unsubscribedAt: now });
  if (!changed) return;
  await recordEngagement(db, client, scope, {
    type: 'unsubscribe',
    leadId: message.leadId,
    message,
    workflowExecutionId: null,
    occurredAt: now,
    machine: false,
    details: { userAgent: userAgent?.slice(0, 300) ?? null },
  });
}
