import { In } from 'typeorm';
import { Lead, LeadDedupeKey, LeadIdentity, OutboxEvent, PendingEnrollment, SearchDocument, User, type Partner } from '../../db/entities';
import { nextId } from '../../db/id-blocks';
import type { LeadCreate } from '../../contracts/lead';
import { AppError, type FieldError } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { pendingEnrollmentSql, startPendingEnrollment, triggeredCampaignsSql } from '../campaigns/auto-enroll';
import type { DomainContext } from '../context';
import { unassignableReason } from '../scoped-lookups';
import { dedupeKeys } from './dedupe-keys';
import { RELAYED_FIELDS, type RelayedEvent } from '../webhooks/relay';
import { startDuplicateDetection } from './leads';
import { defaultLeadStatusHint, leadStatusExistsSql, rememberDefaultLeadStatus, resolveLeadStatus } from './statuses';
import { normalizeEmail, normalizePhone } from '../normalize';
import { resolveReferralCode } from '../referral-codes';
import { leadSearchDocument, searchText } from '../search-index';
import { relayCommitted } from '../unit-of-work';
import { auditInsertSql, writeWithAudit } from '../pending-audit';
import { subscribedSql } from '../webhooks/emit-event';
import { commonKeysSql } from './identities';
import type { ScopedData } from '../../db/scoped-data';
import type { ScopedSqlBuilder } from '../../db/scoped-sql';
import { eventPayloads } from '../../contracts/webhook-events';

export type BatchItemResult =
  { index: number; status: 'created' | 'duplicate'; id: string } | { index: number; status: 'error'; errors: FieldError[] };

type Row = Omit<Lead, 'createdAt' | 'updatedAt' | 'duplicatesCheckedAt' | 'convertedAt'>;

/**
 * Creates up to 100 leads with one statement (writeLeads), not a loop of single creates. Each lead
 * gets what a single create gives it: the event relayed
 * after commit, duplicate detection when it shares a key, `lead_created` campaigns. An item whose
 * references do not resolve (status, assignee, referral code) fails alone; an item with the same
 * normalised email as an earlier item of the batch is not created twice: it answers `duplicate`
 * with the earlier item's lead. Items without a status take the default this process last saw,
 * checked by the statement itself as a single create's (a round trip less per batch); when it is
 * no longer the default, the statement writes nothing and the batch is written again with the
 * default looked up.
 */
export async function createLeadBatch(
  ctx: DomainContext,
  items: { index: number; input: LeadCreate }[],
  hintDefault = true,
): Promise<BatchItemResult[]> {
  const results = new Map<number, BatchItemResult>();
  const refs = await resolveReferences(ctx, items, { hintDefault });
  const firstByEmail = new Map<string, number>();
  const toCreate: { index: number; row: Row }[] = [];
  for (const { index, input } of items) {
    const problem = refs.problems.get(index);
    if (problem) {
      results.set(index, { index, status: 'error', errors: problem });
      continue;
    }
    const emailNormalized = normalizeEmail(input.email);
    if (firstByEmail.has(emailNormalized)) continue; // answered below, once the first one has an ID
    firstByEmail.set(emailNormalized, index);
    const partner = referredBy(refs.partners, input.referralCode);
    toCreate.push({
      index,
      row: {
        id: await nextId(ctx.db, Lead),
        ...ctx.scope,
        email: input.email,
        emailNormalized,
        firstName: input.firstName,
        lastName: input.lastName,
        phone: input.phone ?? null,
        phoneNormalized: normalizePhone(input.phone),
        source: input.source ?? (partner ? 'referral' : 'api'),
        status: refs.statuses.get(input.status ?? '') as string,
        score: input.score ?? 0,
        assignedTo: input.assignedTo === undefined ? ctx.actorUserId : input.assignedTo, // null: unassigned (spec 2.4)
        createdBy: ctx.actorUserId,
        customFields: input.customFields ?? {},
        partnerId: partner?.id ?? null,
      } as Row,
    });
  }

  const rows = toCreate.map((c) => c.row);
  const written = rows.length ? await writeLeads(ctx, rows, refs.hintedDefault) : { events: [], unchecked: [], pending: null };
  if (!written) return createLeadBatch(ctx, items, false);
  for (const { index, row } of toCreate) results.set(index, { index, status: 'created', id: encodeId('lead', row.id) });
  for (const { index, input } of items) {
    if (results.has(index)) continue;
    const first = results.get(firstByEmail.get(normalizeEmail(input.email)) as number) as { id: string };
    results.set(index, { index, status: 'duplicate', id: first.id });
  }

  relayCommitted(ctx, written.events);
  for (const id of written.unchecked) startDuplicateDetection(ctx, { id, ...ctx.scope });
  startPendingEnrollment(ctx, written.pending);
  return items.map(({ index }) => results.get(index) as BatchItemResult);
}

/**
 * Statuses, assignees and referral codes, each distinct value looked up once; per-item problems by
 * index. With `hintDefault`, no status means the default this process last saw, not looked up
 * (`hintedDefault`): the statement that writes the leads must check it (leadStatusExistsSql).
 */
export async function resolveReferences(
  ctx: DomainContext,
  items: { index: number; input: LeadCreate }[],
  opts: { hintDefault?: boolean } = {},
) {
  const problems = new Map<number, FieldError[]>();
  const statuses = new Map<string, string>();
  const partners = new Map<string, Partner>();
  const failed = new Map<string, FieldError[]>();
  const attempt = async (key: string, work: () => Promise<void>) => {
    if (failed.has(key)) return;
    try {
      await work();
    } catch (err) {
      if (!(err instanceof AppError)) throw err;
      failed.set(key, err.errors ?? [{ field: 'lead', message: err.message }]);
    }
  };
  let hintedDefault: string | undefined;
  for (const code of new Set(items.map((i) => i.input.status ?? ''))) {
    const hint = !code && opts.hintDefault ? defaultLeadStatusHint(ctx.db, ctx.scope) : undefined;
    if (hint !== undefined) {
      statuses.set(code, (hintedDefault = hint));
      continue;
    }
    await attempt(`status:${code}`, async () => {
      const status = await resolveLeadStatus(ctx.data, code || undefined);
      statuses.set(code, status);
      if (!code) rememberDefaultLeadStatus(ctx.db, ctx.scope, status);
    });
  }
  for (const code of new Set(items.flatMap((i) => (i.input.referralCode ? [i.input.referralCode.toUpperCase()] : [])))) {
    await attempt(`referral:${code}`, async () => {
      partners.set(code, await resolveReferralCode(ctx.data, code, 'referralCode'));
    });
  }
  const assignees = [...new Set(items.flatMap((i) => (i.input.assignedTo ? [i.input.assignedTo] : [])))];
  const users = new Map(assignees.length ? (await ctx.data.repo(User).find({ where: { id: In(assignees) } })).map((u) => [u.id, u]) : []);
  for (const { index, input } of items) {
    const errors = [
      ...(failed.get(`status:${input.status ?? ''}`) ?? []),
      ...(input.referralCode ? (failed.get(`referral:${input.referralCode.toUpperCase()}`) ?? []) : []),
      ...assigneeErrors(input.assignedTo, users),
    ];
    if (errors.length) problems.set(index, errors);
  }
  return { problems, statuses, partners, hintedDefault };
}

/**
 * The batch's one statement (atomic, so no BEGIN/COMMIT), as a single create's: the key claims in
 * key order (two batches claiming the same keys lock them alike), the leads (each marked checked
 * when every key of its was claimed by it or is common), their cluster rows (new leads' rows, so
 * without ON CONFLICT: see addIdentitiesSql), search documents and
 * lead.created events, the request's audit entry and the enrollments the creation triggers (one
 * pending enrollment for the batch). What comes back is only what follows needs: the events to
 * relay (none when nobody subscribes), the leads still to check for duplicates, the pending
 * enrollment to start. With `hintedDefault`, everything is written only while that status is
 * still the scope's default; null when it was not, and nothing was written.
 */
async function writeLeads(
  ctx: DomainContext,
  rows: Row[],
  hintedDefault?: string,
): Promise<{ events: RelayedEvent[]; unchecked: string[]; pending: PendingEnrollment | null } | null> {
  const keyed = rows
    .flatMap((r) => dedupeKeys(r).map((key) => ({ key, leadId: r.id })))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const now = new Date();
  const docs = rows.map((r) => {
    const doc = leadSearchDocument(r);
    return { docType: doc.type, docId: doc.id, data: doc.data, ...searchText(doc), indexedAt: now };
  });
  return writeWithAudit(ctx, null, async (auditRow) => {
    const result = await ctx.data.sql((q) => {
      const [tenant, env] = q.scopeValues();
      const guard = hintedDefault === undefined ? undefined : leadStatusExistsSql(q, hintedDefault, true, [tenant, env]);
      // The key claims and the leads check the status; every other write follows the leads.
      const leadWritten = guard && 'EXISTS (SELECT 1 FROM lead)';
      const keys = `unnest(${q.value(keyed.map((k) => k.key))}::varchar[], ${q.value(keyed.map((k) => k.leadId))}::bigint[]) AS k(key, lead_id)`;
      // Nothing to check when every key of the lead is new to it (claimed) or common.
      const checked = `CASE WHEN NOT EXISTS (SELECT 1 FROM ${keys} WHERE k.lead_id = u.id
        AND NOT EXISTS (SELECT 1 FROM claimed c WHERE c.lead_id = k.lead_id AND c.key = k.key)
        AND k.key NOT IN (SELECT key FROM common)) THEN now() END`;
      const when = (condition: string | undefined) => (condition ? ` WHERE ${condition}` : '');
      return `WITH claimed AS (INSERT INTO ${q.table(LeadDedupeKey)} (tenant_id, environment, key, lead_id)
        SELECT ${tenant}, ${env}, k.key, k.lead_id FROM ${keys}${when(guard)} ON CONFLICT DO NOTHING RETURNING key, lead_id),
      common AS (${commonKeysSql(q, q.value([...new Set(keyed.map((k) => k.key))]), 'claimed')}),
      lead AS (${q.insertMany(Lead, rows, { duplicatesCheckedAt: checked }, { where: guard })} RETURNING id, duplicates_checked_at),
      identities AS (INSERT INTO ${q.table(LeadIdentity)} (tenant_id, environment, key, lead_id)
        SELECT ${tenant}, ${env}, k.key, k.lead_id FROM ${keys}${when(leadWritten)}),
      docs AS (${q.insertMany(SearchDocument, docs, {}, { where: leadWritten })}),
      event AS (${leadEventsInsertSql(q, 'lead.created', rows, leadWritten)} RETURNING *),
      triggered AS (${triggeredCampaignsSql(q, 'lead_created')}),
      pending AS (${pendingEnrollmentSql(q, 'lead_created', `${q.value(rows.map((r) => r.id))}::bigint[]`, ctx.actorUserId, leadWritten)})
      ${auditRow ? `, audit AS (${auditInsertSql(q, auditRow, { where: leadWritten })} RETURNING id)` : ''}
      SELECT EXISTS (SELECT 1 FROM lead) AS written,
        (SELECT coalesce(array_agg(id::text ORDER BY id), '{}') FROM lead WHERE duplicates_checked_at IS NULL) AS unchecked,
        ${q.columns(PendingEnrollment, 'p', 'p_')} ${auditRow ? ', (SELECT id::text FROM audit) AS audit_id' : ''},
        ${q.columns(OutboxEvent, 'e', 'e_', RELAYED_FIELDS)}
      FROM (SELECT 1) one LEFT JOIN pending p ON true LEFT JOIN event e ON true`;
    });
    const [first] = result;
    if (!first.written) return { result: null, auditId: null };
    return {
      result: {
        events: result.filter((r) => r.e_id !== null).map((r) => ctx.data.entity<RelayedEvent>(OutboxEvent, r, 'e_')),
        unchecked: first.unchecked as string[],
        pending: first.p_id === null ? null : ctx.data.entity(PendingEnrollment, first, 'p_'),
      },
      auditId: (first.audit_id as string | undefined) ?? null,
    };
  });
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

function assigneeErrors(userId: string | null | undefined, users: Map<string, User>): FieldError[] {
  const reason = userId ? unassignableReason(users.get(userId)) : null;
  return reason ? [{ field: 'assignedTo', message: reason }] : [];
}

/** The partner a resolved referral code names (codes are matched upper-cased, as resolveReferences keys them). */
export const referredBy = (partners: Map<string, Partner>, code: string | undefined): Partner | null =>
  code ? (partners.get(code.toUpperCase()) ?? null) : null;
