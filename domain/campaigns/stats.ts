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
 * often it was opened) and ignore machine events; delivered is sent minus bounced (no provider
 * delivery receipts yet). Rates are fractions of sent (unsubscribes of delivered). `recipients` counts
 * people (distinct addresses) instead of messages: the rates a marketer compares across campaigns.
 */
export async function campaignStats(ctx: DomainContext, campaignId: string): Promise<CampaignStats> {
  await getCampaign(ctx, campaignId);
  const params = [ctx.scope.tenantId, ctx.scope.environment, campaignId];
  const [enrollments] = await ctx.db.query(
    `SELECT count(*)::int AS enrolled,
            count(*) FILTER (WHERE status = 'active')::int AS active,
            count(*) FILTER (WHERE status = 'completed')::int AS completed
       FROM campaign_enrollments WHERE tenant_id = $1 AND environment = $2 AND campaign_id = $3`,
    params,
  );
  const [messages] = await ctx.db.query(
    `SELECT count(*) FILTER (WHERE status = 'sent')::int AS sent
       FROM messages WHERE tenant_id = $1 AND environment = $2 AND campaign_id = $3`,
    params,
  );
  const [events] = await ctx.db.query(
    `SELECT count(DISTINCT message_id) FILTER (WHERE type = 'email_open')::int AS opened,
            count(DISTINCT message_id) FILTER (WHERE type = 'link_click')::int AS clicked,
            count(DISTINCT message_id) FILTER (WHERE type = 'email_reply')::int AS replied,
            count(DISTINCT message_id) FILTER (WHERE type = 'email_bounce')::int AS bounced,
            count(DISTINCT lead_id) FILTER (WHERE type = 'unsubscribe')::int AS unsubscribed
       FROM engagement_events WHERE tenant_id = $1 AND environment = $2 AND campaign_id = $3 AND NOT machine`,
    params,
  );
  // Per recipient: the address a message went to (a lead's duplicate records count as one person).
  const [people] = await ctx.db.query(
    `SELECT (SELECT count(DISTINCT lower(to_address)) FROM messages
              WHERE tenant_id = $1 AND environment = $2 AND campaign_id = $3 AND status = 'sent')::int AS sent,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'email_open')::int AS opened,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'link_click')::int AS clicked,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'email_bounce')::int AS bounced,
            count(DISTINCT lower(m.to_address)) FILTER (WHERE e.type = 'unsubscribe')::int AS unsubscribed
       FROM engagement_events e JOIN messages m ON m.id = e.message_id AND m.tenant_id = e.tenant_id
      WHERE e.tenant_id = $1 AND e.environment = $2 AND e.campaign_id = $3 AND NOT e.machine`,
    params,
  );
  const sent = messages.sent as number;
  const delivered = Math.max(0, sent - events.bounced);
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
