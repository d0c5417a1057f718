import { CampaignEnrollment, EngagementEvent, Message } from '../../db/entities';
import { getCampaign } from './campaigns';
import type { DomainContext } from '../context';

export interface CampaignStats {
  enrolled: number;
  active: number;
  completed: number;
  sent: number;
  delivered: number;
  opened: number;
  clicked: number;
  replied: number;
  bounced: number;
  unsubscribed: number;
  rates: { delivery: number; open: number; click: number; reply: number; bounce: number; unsubscribe: number };
  /** The same, per person: distinct addresses, so three opened emails to one lead count once. */
  recipients: {
    sent: number;
    opened: number;
    clicked: number;
    bounced: number;
    unsubscribed: number;
    rates: { open: number; click: number; bounce: number; unsubscribe: number };
  };
}

const rate = (n: number, of: number) => (of > 0 ? Math.round((n / of) * 10_000) / 10_000 : 0);

/**
 * Counts from the database. Opens, clicks and replies count messages (one per message however
 * often it was opened) and ignore machine events. Delivered counts what was reported where there
 * is a report to count: an SMS when Twilio reported it delivered (its `deliveredAt`, set by the
 * status callback), an email when it was sent and did not bounce (SMTP gives no receipt, and the
 * provider's delivery notice is optional). Rates are fractions of sent (unsubscribes of delivered).
 * `recipients` counts people (distinct addresses) instead of messages: the rates a marketer
 * compares across campaigns.
 */
export async function campaignStats(ctx: DomainContext, campaignId: string): Promise<CampaignStats> {
  await getCampaign(ctx, campaignId);
  const [enrollments] = await ctx.data.sql<{ enrolled: number; active: number; completed: number }>(
    (q) => `SELECT count(*)::int AS enrolled,
            count(*) FILTER (WHERE status = 'active')::int AS active,
            count(*) FILTER (WHERE status = 'completed')::int AS completed
       FROM ${q.from(CampaignEnrollment, 'e')} WHERE campaign_id = ${q.value(campaignId)}`,
  );
  const [messages] = await ctx.data.sql<{ sent: number; emailsSent: number; smsDelivered: number }>(
    (q) => `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent,
            count(*) FILTER (WHERE status = 'sent' AND channel = 'email')::int AS "emailsSent",
            count(*) FILTER (WHERE status = 'sent' AND channel = 'sms' AND delivered_at IS NOT NULL)::int AS "smsDelivered"
       FROM ${q.from(Message, 'm')} WHERE campaign_id = ${q.value(campaignId)}`,
  );
  const [events] = await ctx.data.sql<{ opened: number; clicked: number; replied: number; bounced: number; unsubscribed: number }>(
    (q) => `SELECT count(DISTINCT message_id) FILTER (WHERE type = 'email_open')::int AS opened,
            count(DISTINCT message_id) FILTER (WHERE type = 'link_click')::int AS clicked,
            count(DISTINCT message_id) FILTER (WHERE type = 'email_reply')::int AS replied,
            count(DISTINCT message_id) FILTER (WHERE type = 'email_bounce')::int AS bounced,
            count(DISTINCT lead_id) FILTER (WHERE type = 'unsubscribe')::int AS unsubscribed
       FROM ${q.from(EngagementEvent, 'ev')} WHERE campaign_id = ${q.value(campaignId)} AND NOT machine`,
  );
  // Per recipient: the address a message went to (a lead's duplicate records count as one person).
  const [people] = await ctx.data.sql<{ sent: number; opened: number; clicked: number; bounced: number; unsubscribed: number }>((q) => {
    const campaign = q.value(campaignId);
    return `SELECT (SELECT count(DISTINCT lower(to_address)) FROM ${q.from(Message, 'sm')} WHERE campaign_id = ${campaign} AND status = 'sent')::int AS sent,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'email_open')::int AS opened,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'link_click')::int AS clicked,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'email_bounce')::int AS bounced,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'unsubscribe')::int AS unsubscribed
       FROM ${q.from(EngagementEvent, 'e')} JOIN ${q.from(Message, 'm')} ON m.id = e.message_id
      WHERE e.campaign_id = ${campaign} AND NOT e.machine`;
  });
  const sent = messages.sent;
  // Bounces are email's alone; an SMS Twilio reported undelivered has left `sent` for `failed`.
  const delivered = Math.max(0, messages.emailsSent - events.bounced) + messages.smsDelivered;
  return {
    ...enrollments,
    sent,
    delivered,
    ...events,
    rates: {
      delivery: rate(delivered, sent),
      open: rate(events.opened, sent),
      click: rate(events.clicked, sent),
      reply: rate(events.replied, sent),
      bounce: rate(events.bounced, sent),
      unsubscribe: rate(events.unsubscribed, delivered),
    },
    recipients: {
      ...people,
      rates: {
        open: rate(people.opened, people.sent),
        click: rate(people.clicked, people.sent),
        bounce: rate(people.bounced, people.sent),
        unsubscribe: rate(people.unsubscribed, people.sent - people.bounced),
      },
    },
  };
}
