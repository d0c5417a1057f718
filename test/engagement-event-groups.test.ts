import { decodeId, encodeId } from '../lib/ids';
import { workflowIds } from '../workflows/ids';
import type { campaignSequenceWorkflow } from '../workflows/campaign-sequence';
import { outboxOf } from './support/events';
import { sentEmail } from './support/messages';
import { groupSizes } from './support/group-sizes';
import { whileTableLocked } from './support/locked-table';
import { awaitEngagementOf } from './support/sequences';
import { newTenant, startStack, validLead, type TestStack, type TestTenant } from './support/stack';
import { waitUntil } from './support/wait-until';

/**
 * Concurrent POST /v1/analytics/events of one scope share one statement
 * (domain/engagement/grouped-events.ts). The engagement events table is held locked while the
 * events arrive, so the first waits in PostgreSQL and the rest queue behind it and go together.
 * What each request would have had alone must hold in the group: its own event, lead check, audit
 * entry, webhook and signals.
 */
let stack: TestStack;
beforeAll(async () => {
  stack = await startStack();
});
afterAll(() => stack.stop());

const api = () => stack.http();
const sizes = () => groupSizes('engagement_event_group_size');
const whileEventsLocked = <T>(send: () => Promise<T>) => whileTableLocked(stack, 'engagement_events', 'WITH ev AS', send);
const newLead = async (headers: Record<string, string>) =>
  (await api().post('/v1/leads').set(headers).send(validLead()).expect(201)).body.data as { id: string; email: string };

/** An active campaign whose enrollments wait 30 days for a click, with `leads` enrolled and waiting. */
async function waitingForClicks(t: TestTenant, leads: { id: string }[]) {
  const workflow = await api().post('/v1/workflows').set(t.live).send(awaitEngagementOf('link_clicked', 'Await a click')).expect(201);
  const campaign = (
    await api().post('/v1/campaigns').set(t.live).send({ name: 'Clicks', workflowId: workflow.body.data.id, status: 'active' }).expect(201)
  ).body.data as { id: string };
  await api()
    .post(`/v1/campaigns/${campaign.id}/enrollments`)
    .set(t.live)
    .send({ leadIds: leads.map((l) => l.id) })
    .expect(200);
  const leadKeys = leads.map((l) => decodeId('lead', l.id));
  await waitUntil(async () => {
    const [{ n }] = await stack.db.query(
      `SELECT count(*)::int AS n FROM campaign_enrollments
        WHERE lead_id = ANY($1::bigint[]) AND engagement_signals_until > now() AND engagement_signal_type = 'link_click'`,
      [leadKeys],
    );
    return n === leads.length;
  }, 'the enrollments waiting for a click');
  return campaign;
}

describe('concurrent engagement events written together', () => {
  it('gives each event its own row, lead check, audit entry, webhook and signal, with fewer statements than events', async () => {
    const t = await newTenant(stack.db);
    await stack.subscribe(t);
    const leads = [await newLead(t.live), await newLead(t.live), await newLead(t.live), await newLead(t.live)];
    const elsewhere = await newLead(t.sandbox); // another scope's lead
    const campaign = await waitingForClicks(t, leads);
    const [mail0, mail1] = [await sentEmail(stack.db, t, leads[0]), await sentEmail(stack.db, t, leads[1])];
    const bodies: { eventType: string; leadId: string; messageId?: string }[] = [
      ...leads.map((lead) => ({ eventType: 'link_click', leadId: lead.id })),
      { eventType: 'email_open', leadId: leads[0].id, messageId: mail0 },
      { eventType: 'email_open', leadId: elsewhere.id },
      // Its message is the scope's, its lead not: neither the event nor its email.opened is written.
      { eventType: 'email_open', leadId: elsewhere.id, messageId: mail1 },
    ];
    const requestId = (i: number) => `event-group-${process.pid}-${Date.now()}-${i}`;
    const ids = bodies.map((_, i) => requestId(i));

    const before = await sizes();
    const responses = await whileEventsLocked(() =>
      Promise.all(bodies.map((body, i) => api().post('/v1/analytics/events').set(t.live).set('X-Request-Id', ids[i]).send(body))),
    );
    const after = await sizes();
    expect(after.items - before.items).toBe(bodies.length);
    expect(after.groups - before.groups).toBe(2); // the first alone, then the six that queued behind it

    expect(responses.map((r) => r.status)).toEqual([201, 201, 201, 201, 201, 422, 422]);
    for (const res of responses.slice(5)) expect(res.body.errors).toEqual([{ field: 'leadId', message: 'Lead not found' }]);
    const written = responses.slice(0, 5).map((r) => r.body.data as { id: string; type: string; leadId: string; messageId: string | null });
    expect(written.map((e) => [e.type, e.leadId, e.messageId])).toEqual(
      bodies.slice(0, 5).map((b) => [b.eventType, b.leadId, b.messageId ?? null]),
    );
    expect(new Set(written.map((e) => e.id)).size).toBe(5);

    // Exactly the five events are stored, each with the audit entry of its own request.
    const stored: { id: string }[] = await stack.db.query(`SELECT id::text FROM engagement_events WHERE tenant_id = $1`, [t.tenant.id]);
    expect(stored.map((e) => encodeId('engagementEvent', e.id)).sort()).toEqual(written.map((e) => e.id).sort());
    const audits: { request_id: string; resource_id: string | null; status_code: number }[] = await stack.db.query(
      `SELECT request_id, resource_id, status_code FROM audit_logs WHERE tenant_id = $1 AND request_id = ANY($2::text[])`,
      [t.tenant.id, ids],
    );
    for (const [i, event] of written.entries()) {
      expect(audits.filter((a) => a.request_id === ids[i])).toEqual([{ request_id: ids[i], resource_id: event.id, status_code: 201 }]);
    }
    expect(audits.filter((a) => ids.slice(5).includes(a.request_id) && a.status_code !== 422)).toEqual([]);

    // One email.opened: the written open's, not the refused one's of the other message.
    const opened = await outboxOf(stack.db, t, 'live', ['email.opened']);
    expect(opened.map((e) => e.data.messageId)).toEqual([mail0]);

    // Each click decided its own lead's enrollment, with one signal: the open of the first lead is
    // not what its enrollment waits for.
    for (const lead of leads) {
      const handle = stack.client.workflow.getHandle<typeof campaignSequenceWorkflow>(workflowIds.campaignEnrollment(campaign.id, lead.id));
      expect((await handle.result()).path).toEqual(['start', 'waiting:true', 'done']);
      const { events } = await handle.fetchHistory();
      expect(events?.filter((e) => e.workflowExecutionSignaledEventAttributes)).toHaveLength(1);
    }
  });

  it('keeps scopes apart: events of the live and sandbox environments at once are each written in their own', async () => {
    const t = await newTenant(stack.db);
    const [live, sandbox] = [await newLead(t.live), await newLead(t.sandbox)];
    const sends = Array.from({ length: 6 }, (_, i) => (i % 2 ? { headers: t.sandbox, lead: sandbox } : { headers: t.live, lead: live }));
    const responses = await whileTableLocked(
      stack,
      'engagement_events',
      'WITH ev AS',
      () =>
        Promise.all(
          sends.map(({ headers, lead }) =>
            api().post('/v1/analytics/events').set(headers).send({ eventType: 'email_open', leadId: lead.id }),
          ),
        ),
      2,
    );
    expect(responses.map((r) => r.status)).toEqual(sends.map(() => 201));
    const rows: { environment: string; lead_id: string }[] = await stack.db.query(
      `SELECT environment, lead_id::text FROM engagement_events WHERE tenant_id = $1 ORDER BY id`,
      [t.tenant.id],
    );
    expect(rows.filter((r) => r.environment === 'live').map((r) => encodeId('lead', r.lead_id))).toEqual([live.id, live.id, live.id]);
    expect(rows.filter((r) => r.environment === 'sandbox').map((r) => encodeId('lead', r.lead_id))).toEqual([
      sandbox.id,
      sandbox.id,
      sandbox.id,
    ]);
    // Each environment lists only its own.
    for (const [headers, lead] of [
      [t.live, live],
      [t.sandbox, sandbox],
    ] as const) {
      const listed = (await api().get('/v1/analytics/events').set(headers).expect(200)).body.data as { leadId: string }[];
      expect(listed.map((e) => e.leadId)).toEqual([lead.id, lead.id, lead.id]);
    }
  });
});
