import { AuditLog, Lead, LeadDedupeKey, LeadIdentity, OutboxEvent, PendingEnrollment, SearchDocument } from '../../db/entities';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import { eventPayloads } from '../../contracts/webhook-events';
import { pendingEnrollmentSql, triggeredCampaignsSql } from '../campaigns/auto-enroll';
import type { DomainContext } from '../context';
import { leadSearchDocument, searchText } from '../search-index';
import { subscribedSql } from '../webhooks/emit-event';
import { RELAYED_FIELDS, type RelayedEvent } from '../webhooks/relay';
import { dedupeKeys } from './dedupe-keys';
import { commonKeysSql } from './identities';
import { heldLeadStatusesSql } from './statuses';

/** A new lead's row as the API builds it; the database sets the rest. */
export type NewLeadRow = Omit<Lead, 'createdAt' | 'updatedAt' | 'duplicatesCheckedAt' | 'convertedAt' | 'unsubscribedAt' | 'bouncedAt'>;

export interface WriteLeadsOptions {
  /** The rows' status when it was not looked up but taken as the scope's default: written only while it still is. */
  hintedDefault?: string;
  /** Audit entries that commit with the leads (a batch request's one entry, or one per grouped create). */
  audits: Partial<AuditLog>[];
  /** The lead columns to read back (all by default). */
  returning?: readonly string[];
}

export interface LeadsWritten {
  /** The written leads, with the `returning` columns. */
  leads: Lead[];
  /** Their lead.created events to relay (none when nobody subscribes). */
  events: RelayedEvent[];
  /** The enrollments their creation triggers, made after the answer by one auto-enroll workflow. */
  pending: PendingEnrollment | null;
  /** The stored audit entries' IDs, in the order of `audits`. */
  auditIds: string[];
}

/**
 * Writes new leads with one statement (atomic, so no BEGIN/COMMIT): the key claims in key order
 * (two statements claiming the same keys lock them alike), the leads (each marked checked when
 * every key of its was claimed by it or is common, so only the others need a duplicate check),
 * their cluster rows (none can exist yet for a new lead, so without ON CONFLICT, whose check adds
 * more than half the insert's cost to each row; the primary key still refuses a repeat), search
 * documents and lead.created events, the audit entries and the enrollments the creation triggers.
 * Two leads of one statement with the same key are written both, as two creates one after the
 * other would be: the second does not claim it, so it is checked for duplicates. Everything is
 * written only while the rows' statuses are lead statuses of the scope (and `hintedDefault` still
 * the default), held until the statement commits (heldLeadStatusesSql): null when one was not,
 * and nothing was written.
 */
export async function writeLeads(ctx: DomainContext, rows: NewLeadRow[], opts: WriteLeadsOptions): Promise<LeadsWritten | null> {
  const keyed = rows
    .flatMap((r) => dedupeKeys(r).map((key) => ({ key, leadId: r.id })))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const now = new Date();
  const docs = rows.map((r) => {
    const doc = leadSearchDocument(r);
    return { docType: doc.type, docId: doc.id, data: doc.data, ...searchText(doc), indexedAt: now };
  });
  const result = await ctx.data.sql((q) => {
    const [tenant, env] = q.scopeValues();
    const { audits } = opts;
    const statuses = heldLeadStatusesSql(q, [...new Set(rows.map((r) => r.status))], opts.hintedDefault, [tenant, env]);
    // The key claims and the leads check the statuses (held once, by the first CTE); every other write follows the leads.
    const guard = '(SELECT held FROM statuses)';
    const leadWritten = 'EXISTS (SELECT 1 FROM lead)';
    const keys = `unnest(${q.value(keyed.map((k) => k.key))}::varchar[], ${q.value(keyed.map((k) => k.leadId))}::bigint[]) AS k(key, lead_id)`;
    // Nothing to check when every key of the lead is new to it (claimed) or common.
    const checked = `CASE WHEN NOT EXISTS (SELECT 1 FROM ${keys} WHERE k.lead_id = u.id
      AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.lead_id = k.lead_id AND c.key = k.key)
      AND k.key NOT IN (SELECT key FROM common)) THEN now() END`;
    return `WITH statuses AS MATERIALIZED (${statuses}),
    claimed AS (INSERT INTO ${q.table(LeadDedupeKey)} (tenant_id, environment, key, lead_id)
      SELECT ${tenant}, ${env}, k.key, k.lead_id FROM ${keys} WHERE ${guard} ON CONFLICT DO NOTHING RETURNING key, lead_id),
    common AS (${commonKeysSql(q, q.value([...new Set(keyed.map((k) => k.key))]), 'claimed')}),
    lead AS (${q.insertMany(Lead, rows, { duplicatesCheckedAt: checked }, { where: guard })} RETURNING *),
    identities AS (INSERT INTO ${q.table(LeadIdentity)} (tenant_id, environment, key, lead_id)
      SELECT ${tenant}, ${env}, k.key, k.lead_id FROM ${keys} WHERE ${leadWritten}),
    docs AS (${q.insertMany(SearchDocument, docs, {}, { where: leadWritten })}),
    event AS (${leadEventsInsertSql(q, 'lead.created', rows, leadWritten)} RETURNING *),
    triggered AS (${triggeredCampaignsSql(q, 'lead_created')}),
    pending AS (${pendingEnrollmentSql(q, 'lead_created', `${q.value(rows.map((r) => r.id))}::bigint[]`, ctx.actorUserId, leadWritten)})
    ${audits.length ? `, audit AS (${q.insertMany(AuditLog, audits, {}, { where: leadWritten })} RETURNING id)` : ''}
    SELECT l.n = 1 AS first, ${q.columns(Lead, 'l', 'l_', opts.returning)}, ${q.columns(OutboxEvent, 'e', 'e_', RELAYED_FIELDS)},
      ${q.columns(PendingEnrollment, 'p', 'p_')}${audits.length ? `, CASE WHEN l.n = 1 THEN (SELECT array_agg(id::text ORDER BY id) FROM audit) END AS audit_ids` : ''}
    FROM (SELECT *, row_number() OVER () AS n FROM lead) l
      LEFT JOIN (SELECT *, row_number() OVER () AS n FROM event) e ON e.n = l.n
      LEFT JOIN pending p ON l.n = 1`;
  });
  if (!result.length) return null; // a status did not hold: no lead was written
  // The pending enrollment and the audit IDs are the statement's, given with its first lead only.
  const first = result.find((r) => r.first) as Record<string, unknown>;
  return {
    leads: result.map((r) => ctx.data.entity(Lead, r, 'l_')),
    events: result.filter((r) => r.e_id !== null).map((r) => ctx.data.entity<RelayedEvent>(OutboxEvent, r, 'e_')),
    pending: first.p_id === null ? null : ctx.data.entity(PendingEnrollment, first, 'p_'),
    auditIds: (first.audit_ids as string[] | null | undefined) ?? [],
  };
}

type LeadEventType = 'lead.created' | 'lead.updated';
type LeadEventInput<T extends LeadEventType> = Parameters<(typeof eventPayloads)[T]>[0];

/**
 * The INSERT of one lead event type's outbox rows for leads written together, to compose into a
 * statement: written only when an active endpoint subscribes (as emitEvent's), each for the relay.
 */
function leadEventsInsertSql<T extends LeadEventType>(q: ScopedSqlBuilder, type: T, inputs: LeadEventInput<T>[], where?: string): string {
  const build = eventPayloads[type] as (input: LeadEventInput<T>) => Record<string, unknown>;
  const events = inputs.map((input) => ({ type, data: build(input), targetEndpointId: null }));
  const subscribed = subscribedSql(q, { type });
  return q.insertMany(OutboxEvent, events, {}, { where: where ? `${where} AND ${subscribed}` : subscribed });
}

/** The outbox rows of one lead event type, in one statement (none when nobody subscribes). */
export async function insertLeadEvents<T extends LeadEventType>(
  tx: ScopedData,
  type: T,
  inputs: LeadEventInput<T>[],
): Promise<RelayedEvent[]> {
  if (!inputs.length) return [];
  return tx.sqlEntities<RelayedEvent>(
    OutboxEvent,
    (q) => `WITH event AS (${leadEventsInsertSql(q, type, inputs)} RETURNING *)
      SELECT ${q.columns(OutboxEvent, 'event', '', RELAYED_FIELDS)} FROM event`,
  );
}
