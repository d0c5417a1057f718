import { ApplicationFailure } from '@temporalio/activity';
import { deliverMessage } from '../activities/messaging/deliver-message';
import { RECIPIENT_REJECTED } from '../activities/messaging/email-transport';
import type { MessagingSettings } from '../activities/messaging/settings';
import { EngagementEvent, Lead } from '../db/entities';
import { ScopedData } from '../db/scoped-data';
import { scoped } from '../db/scoped-repository';
import { storeMessageOnce } from '../domain/communications/store-message';
import { decodeId, encodeId } from '../lib/ids';
import { outboxOf } from './support/events';
import { startMailStack } from './support/mail-stack';
import type { SmtpSink } from './support/smtp-sink';
import { validLead, type TestStack, type TestTenant } from './support/stack';

/**
 * A recipient refused for good at RCPT TO is a hard bounce (docs/decisions.md, "Tracking and
 * engagement events"). Temporal runs the delivery activity again whenever an attempt fails or its
 * worker dies, including after the bounce was recorded; these tests run the activity itself twice
 * against a real SMTP server and PostgreSQL, as such a retry would, on a message still queued.
 */
let stack: TestStack;
let tenant: TestTenant;
let smtp: SmtpSink;
let stop: () => Promise<void>;
let settings: MessagingSettings;

beforeAll(async () => {
  ({ stack, tenant, smtp, stop } = await startMailStack({ name: 'bounce-at-sending' }));
  await stack.subscribe(tenant);
  settings = {
    smtpUrl: smtp.url,
    emailFrom: 'Sales <sales@example.test>',
    tracking: { secret: 'bounce-at-sending-secret-0123456789', baseUrl: 'https://bounce.test' },
  };
});
afterAll(() => stop());

const scope = () => ({ tenantId: tenant.tenant.id, environment: 'live' as const });

/** A lead whose mailbox the SMTP server refuses, and a queued email to it that no workflow delivers. */
async function queuedToDeadMailbox(marketing: boolean) {
  const lead = (await stack.http().post('/v1/leads').set(tenant.live).send(validLead()).expect(201)).body.data as {
    id: string;
    email: string;
  };
  smtp.unknownMailboxes.add(lead.email.toLowerCase());
  const leadId = decodeId('lead', lead.id) as string;
  const message = await storeMessageOnce(new ScopedData(stack.db.manager, scope()), {
    channel: 'email',
    to: lead.email,
    subject: 'Offer',
    body: 'Buy now',
    leadId,
    marketing,
    idempotencyKey: `test/${lead.id}`,
  });
  return { leadId, email: lead.email, messageId: message.id };
}

/** One attempt of the delivery activity; the refusal it throws for a dead mailbox, or its result. */
async function attempt(messageId: string) {
  return deliverMessage(stack.db, stack.workflows, settings)({ ...scope(), messageId }).catch((err: unknown) => err);
}

const bouncesOf = (messageId: string) => scoped(stack.db.manager, EngagementEvent, scope()).count({ messageId, type: 'email_bounce' });
const outbox = () => outboxOf(stack.db, tenant, 'live');

describe('a hard bounce at sending', () => {
  afterEach(() => smtp.unknownMailboxes.clear());

  it.each([
    // A retry that found the message queued sent a transactional email again, and failed a
    // marketing one as suppressed with email.failed besides its email.bounced.
    ['a transactional email', false],
    ['a marketing email', true],
  ])('is recorded once however often the activity runs: %s', async (_name, marketing) => {
    const { messageId } = await queuedToDeadMailbox(marketing);
    const first = await attempt(messageId);
    expect(first).toBeInstanceOf(ApplicationFailure);
    expect((first as ApplicationFailure).type).toBe(RECIPIENT_REJECTED);
    expect(await bouncesOf(messageId)).toBe(1);
    const events = await outbox();
    expect(events.filter((e) => e.type === 'email.bounced' && e.data.messageId === encodeId('message', messageId))).toHaveLength(1);

    // The retry Temporal makes when the first attempt's completion was lost (its worker died).
    await attempt(messageId);
    expect(await bouncesOf(messageId)).toBe(1);
    expect(await outbox()).toEqual(events);
  });

  it('a retry finishes what the attempt that recorded it left undone, recording nothing twice', async () => {
    const { leadId, email, messageId } = await queuedToDeadMailbox(true);
    await attempt(messageId);
    // As if the attempt died after the bounce committed and before the suppression did.
    await stack.db.query(`DELETE FROM email_suppressions WHERE tenant_id = $1 AND address = $2`, [tenant.tenant.id, email.toLowerCase()]);
    await scoped(stack.db.manager, Lead, scope()).updateWhere({ id: leadId }, { bouncedAt: null });
    const reported = (await outbox()).filter((e) => e.type === 'email.bounced' || e.type === 'email.failed');

    await attempt(messageId);
    const [suppression] = await stack.db.query(`SELECT reason FROM email_suppressions WHERE tenant_id = $1 AND address = $2`, [
      tenant.tenant.id,
      email.toLowerCase(),
    ]);
    expect(suppression).toEqual({ reason: 'bounced' });
    expect((await scoped(stack.db.manager, Lead, scope()).findById(leadId))?.bouncedAt).not.toBeNull();
    expect(await bouncesOf(messageId)).toBe(1);
    expect((await outbox()).filter((e) => e.type === 'email.bounced' || e.type === 'email.failed')).toEqual(reported);
  });
});
