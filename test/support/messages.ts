import type { DataSource } from 'typeorm';
import { Message } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { decodeId, encodeId } from '../../lib/ids';
import type { TestTenant } from './stack';

/** An email sent an hour ago to `lead` in the tenant's live scope, written straight to the database; its message ID. */
export async function sentEmail(db: DataSource, t: TestTenant, lead: { id: string; email: string }): Promise<string> {
  const message = await scoped(db.manager, Message, { tenantId: t.tenant.id, environment: 'live' }).insert({
    channel: 'email',
    to: lead.email,
    subject: 'Hello',
    body: 'Hi',
    status: 'sent',
    leadId: decodeId('lead', lead.id) as string,
    idempotencyKey: `sent-email-${lead.id}`,
    sentAt: new Date(Date.now() - 3_600_000),
  });
  return encodeId('message', message.id);
}
