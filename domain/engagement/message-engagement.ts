import { EngagementEvent } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';

/**
 * People's opens and clicks of a message (machine traffic excluded), and what its provider reported
 * (delivered, bounced, replied), as messages show them.
 */
export interface MessageEngagement {
  openedAt: Date | null;
  clickedAt: Date | null;
  openCount: number;
  clickCount: number;
  deliveredAt: Date | null;
  bouncedAt: Date | null;
  repliedAt: Date | null;
}
export const NO_ENGAGEMENT: MessageEngagement = {
  openedAt: null,
  clickedAt: null,
  openCount: 0,
  clickCount: 0,
  deliveredAt: null,
  bouncedAt: null,
  repliedAt: null,
};

/** One query for a page of messages. */
export async function engagementOfMessages(data: ScopedData, messageIds: string[]): Promise<Map<string, MessageEngagement>> {
  if (messageIds.length === 0) return new Map();
  const rows = await data.sql(
    (q) => `SELECT message_id::text AS id,
            min(occurred_at) FILTER (WHERE type = 'email_open') AS opened_at,
            min(occurred_at) FILTER (WHERE type = 'link_click') AS clicked_at,
            count(*) FILTER (WHERE type = 'email_open')::int AS open_count,
            count(*) FILTER (WHERE type = 'link_click')::int AS click_count,
            min(occurred_at) FILTER (WHERE type = 'email_delivered') AS delivered_at,
            min(occurred_at) FILTER (WHERE type = 'email_bounce') AS bounced_at,
            min(occurred_at) FILTER (WHERE type = 'email_reply') AS replied_at
       FROM ${q.from(EngagementEvent, 'e')}
      WHERE message_id = ANY(${q.value(messageIds)}::bigint[]) AND NOT machine
      GROUP BY message_id`,
  );
  return new Map(
    rows.map((r) => [
      r.id as string,
      {
        openedAt: (r.opened_at as Date | null) ?? null,
        clickedAt: (r.clicked_at as Date | null) ?? null,
        openCount: r.open_count as number,
        clickCount: r.click_count as number,
        deliveredAt: (r.delivered_at as Date | null) ?? null,
        bouncedAt: (r.bounced_at as Date | null) ?? null,
        repliedAt: (r.replied_at as Date | null) ?? null,
      },
    ]),
  );
}
