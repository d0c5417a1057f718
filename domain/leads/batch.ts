import { In } from 'typeorm';
import { Lead, LeadDedupeKey, LeadIdentity, OutboxEvent, SearchDocument, User, WebhookEndpoint, type Partner } from '../../db/entities';
import { nextId } from '../../db/id-blocks';
import type { LeadCreate } from '../../contracts/lead';
import { AppError, type FieldError } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { enrollByTrigger } from '../campaigns/auto-enroll';
import type { DomainContext } from '../context';
import { dedupeKeys } from './dedupe-keys';
import { startDuplicateDetection } from './leads';
import { resolveLeadStatus } from './statuses';
import { normalizeEmail, normalizePhone } from '../normalize';
import { resolveReferralCode } from '../referral-codes';
import { leadSearchDocument, searchText } from '../search-index';
import { relayCommitted, unitOfWork } from '../unit-of-work';
import type { ScopedData } from '../../db/scoped-data';
import { eventPayloads } from '../../contracts/webhook-events';
import { config } from '../../lib/config';

export type BatchItemResult =
  { index: number; status: 'created' | 'duplicate'; id: string } | { index: number; status: 'error'; errors: FieldError[] };

type Row = Omit<Lead, 'createdAt' | 'updatedAt' | 'duplicatesCheckedAt' | 'convertedAt'> & { duplicatesCheckedAt: Date | null };

/**
 * Creates up to 100 leads with set-based statements in one transaction: one INSERT each for the
 * key claims, the leads, their cluster rows, their search documents and their lead.created events
 * (not a loop of single creates). Each lead gets what a single create gives it: the event relayed
 * after commit, duplicate detection when it shares a key, `lead_created` campaigns. An item whose
 * references do not resolve (status, assignee, referral code) fails alone; an item with the same
 * normalised email as an earlier item of the batch is not created twice: it answers `duplicate`
 * with the earlier item's lead.
 */
export async function createLeadBatch(ctx: DomainContext, items: { index: number; input: LeadCreate }[]): Promise<BatchItemResult[]> {
  const results = new Map<number, BatchItemResult>();
  const refs = await resolveReferences(ctx, items);
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
    const partner = input.referralCode ? (refs.partners.get(input.referralCode.toUpperCase()) as Partner) : null;
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
        assignedTo: input.assignedTo ?? ctx.actorUserId,
        createdBy: ctx.actorUserId,
        customFields: input.customFields ?? {},
        partnerId: partner?.id ?? null,
        duplicatesCheckedAt: null,
      } as Row,
    });
  }

  const rows = toCreate.map((c) => c.row);
  const events = rows.length ? await writeLeads(ctx, rows) : [];
  for (const { index, row } of toCreate) results.set(index, { index, status: 'created', id: encodeId('lead', row.id) });
  for (const { index, input } of items) {
    if (results.has(index)) continue;
    const first = results.get(firstByEmail.get(normalizeEmail(input.email)) as number) as { id: string };
    results.set(index, { index, status: 'duplicate', id: first.id });
  }

  await relayCommitted(ctx, events);
  for (const row of rows) if (!row.duplicatesCheckedAt) startDuplicateDetection(ctx, row);
  await enrollByTrigger(ctx, rows, 'lead_created');
  return items.map(({ index }) => results.get(index) as BatchItemResult);
}

/** Statuses, assignees and referral codes, each distinct value looked up once; per-item problems by index. */
export async function resolveReferences(ctx: DomainContext, items: { index: number; input: LeadCreate }[]) {
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
  for (const code of new Set(items.map((i) => i.input.status ?? ''))) {
    await attempt(`status:${code}`, async () => {
      statuses.set(code, await resolveLeadStatus(ctx.data, code || undefined));
    });
  }
  for (const code of new Set(items.flatMap((i) => (i.input.referralCode ? [i.input.referralCode.toUpperCase()] : [])))) {
    await attempt(`referral:${code}`, async () => {
      partners.set(code, await resolveReferralCode(ctx.data, code, 'referralCode'));
    });
  }
  const assignees = [...new Set(items.flatMap((i) => (i.input.assignedTo ? [i.input.assignedTo] : [])))];
  const users = new Set(assignees.length ? (await ctx.data.repo(User).find({ where: { id: In(assignees) } })).map((u) => u.id) : []);
  for (const { index, input } of items) {
    const errors = [
      ...(failed.get(`status:${input.status ?? ''}`) ?? []),
      ...(input.referralCode ? (failed.get(`referral:${input.referralCode.toUpperCase()}`) ?? []) : []),
      ...(input.assignedTo && !users.has(input.assignedTo) ? [{ field: 'assignedTo', message: 'User not found' }] : []),
    ];
    if (errors.length) problems.set(index, errors);
  }
  return { problems, statuses, partners };
}

/**
 * The batch's statements. Only the events that still need relaying come back: the leads, their
 * search documents and events nobody subscribes to are written without RETURNING, since the rows
 * in hand already say all that follows needs (IDs, scope, whether a duplicate check is due).
 */
async function writeLeads(ctx: DomainContext, rows: Row[]): Promise<OutboxEvent[]> {
  return unitOfWork(ctx, async (tx) => {
    // Sorted, so two batches claiming the same keys take their locks in the same order (no deadlock).
    const keyed = rows
      .flatMap((r) => dedupeKeys(r).map((key) => ({ key, leadId: r.id })))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    const [keys, ids] = [keyed.map((k) => k.key), keyed.map((k) => k.leadId)];
    // Claims first: as in a single create, a claim waits for a concurrent claimer of the same key.
    const claimed = await tx.sql<{ key: string; lead_id: string }>((q) => {
      const [tenant, env] = q.scopeValues();
      return `INSERT INTO ${q.table(LeadDedupeKey)} (tenant_id, environment, key, lead_id)
        SELECT ${tenant}::bigint, ${env}::varchar, k, id FROM unnest(${q.value(keys)}::varchar[], ${q.value(ids)}::bigint[]) AS u(k, id)
        ON CONFLICT DO NOTHING RETURNING key, lead_id::text`;
    });
    const common = await tx.sql<{ key: string }>(
      (q) => `SELECT k AS key FROM unnest(${q.value([...new Set(keys)])}::varchar[]) k
        WHERE (SELECT count(*) FROM (SELECT 1 FROM ${q.from(LeadIdentity, 'c')} WHERE c.key = k LIMIT ${q.value(config.DEDUPE_COMMON_IDENTITY_LEADS)}::int) n)
          >= ${q.value(config.DEDUPE_COMMON_IDENTITY_LEADS)}::int`,
    );
    const settled = new Set([...claimed.map((c) => `${c.lead_id}:${c.key}`)]);
    const commonKeys = new Set(common.map((c) => c.key));
    const now = new Date();
    for (const r of rows) {
      // Nothing to check when every key is new to this lead (claimed) or common, as in a single create.
      if (dedupeKeys(r).every((k) => settled.has(`${r.id}:${k}`) || commonKeys.has(k))) r.duplicatesCheckedAt = now;
    }
    await tx.repo(Lead).insertManyWithoutReturning(rows);
    await tx.sql((q) => {
      const [tenant, env] = q.scopeValues();
      return `INSERT INTO ${q.table(LeadIdentity)} (tenant_id, environment, key, lead_id)
        SELECT ${tenant}::bigint, ${env}::varchar, k, id FROM unnest(${q.value(keys)}::varchar[], ${q.value(ids)}::bigint[]) AS u(k, id)
        ON CONFLICT DO NOTHING`;
    });
    await tx.repo(SearchDocument).insertManyWithoutReturning(
      rows.map((r) => {
        const doc = leadSearchDocument(r);
        return { docType: doc.type, docId: doc.id, data: doc.data, ...searchText(doc), indexedAt: now };
      }),
    );
    return insertLeadEvents(tx, 'lead.created', rows);
  });
}

type LeadEventType = 'lead.created' | 'lead.updated';

/**
 * The outbox rows of one lead event type for leads written together, in one statement. Only the
 * events that need relaying (after commit, by the caller) come back: when nobody subscribes, they
 * are written as dispatched already, as emitEvent does, and without RETURNING.
 */
export async function insertLeadEvents<T extends LeadEventType>(
  tx: ScopedData,
  type: T,
  inputs: Parameters<(typeof eventPayloads)[T]>[0][],
): Promise<OutboxEvent[]> {
  if (!inputs.length) return [];
  const [subscribed] = await tx.sql<{ any: boolean }>(
    (q) => `SELECT EXISTS (SELECT 1 FROM ${q.from(WebhookEndpoint, 'w')} WHERE w.status = 'active'
      AND (${q.value(type)} = ANY(w.events) OR '*' = ANY(w.events))) AS any`,
  );
  const build = eventPayloads[type] as (input: (typeof inputs)[number]) => Record<string, unknown>;
  const now = new Date();
  const events = inputs.map((input) => ({
    type,
    data: build(input),
    targetEndpointId: null,
    dispatchedAt: subscribed.any ? null : now,
  }));
  if (subscribed.any) return tx.repo(OutboxEvent).insertMany(events);
  await tx.repo(OutboxEvent).insertManyWithoutReturning(events);
  return [];
}
