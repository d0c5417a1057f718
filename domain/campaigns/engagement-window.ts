import { CampaignEnrollment, EngagementEvent } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import type { EngagementKind, EngagementSignal } from '../../workflows/campaign-signals';

export interface EngagementWait {
  enrollmentId: string;
  leadId: string;
  campaignId: string;
  type: EngagementKind;
  /** The end of the condition's window: signals are sent until then. */
  until: Date;
}

/** As many as the sequence keeps in its state. */
const MAX_EARLIER = 50;

/**
 * An enrollment starts waiting on an engagement condition: from now until the window ends the API
 * signals it each event of the type it waits for (record-engagement.ts; a condition waits for one
 * at a time, so a later one's type replaces an earlier one's), and the events that came before,
 * which were not signalled, are read here. The window is committed before the read, so an event is
 * either seen by the read or stored after the window opened and signalled (or both: the
 * condition only asks whether one matches).
 */
export async function openEngagementWindow(data: ScopedData, wait: EngagementWait): Promise<EngagementSignal[]> {
  const [enrollment] = await data.sql<{ workflow_id: string; created_at: Date }>((q) => {
    const until = q.col(CampaignEnrollment, 'engagementSignalsUntil');
    return `UPDATE ${q.table(CampaignEnrollment)} SET ${until} = GREATEST(COALESCE(${until}, '-infinity'), ${q.value(wait.until)}),
        ${q.col(CampaignEnrollment, 'engagementSignalType')} = ${q.value(wait.type)}
      WHERE ${q.scope()} AND id = ${q.value(wait.enrollmentId)} RETURNING workflow_id, created_at`;
  });
  if (!enrollment) return [];
  // The events record-engagement.ts would have signalled to this enrollment since it started.
  const rows = await data.sql<{ type: EngagementKind; message_id: string | null; occurred_at: Date }>(
    (q) => `SELECT e.type, e.message_id::text, e.occurred_at FROM ${q.from(EngagementEvent, 'e')}
      WHERE e.lead_id = ${q.value(wait.leadId)} AND e.type = ${q.value(wait.type)} AND NOT e.machine
        AND e.occurred_at >= ${q.value(enrollment.created_at)}
        AND (e.workflow_execution_id = ${q.value(enrollment.workflow_id)}
          OR (e.workflow_execution_id IS NULL AND (e.campaign_id IS NULL OR e.campaign_id = ${q.value(wait.campaignId)})))
      ORDER BY e.occurred_at DESC LIMIT ${MAX_EARLIER}`,
  );
  return rows
    .reverse()
    .map((r) => ({ type: r.type, ...(r.message_id ? { messageId: r.message_id } : {}), at: new Date(r.occurred_at).toISOString() }));
}
