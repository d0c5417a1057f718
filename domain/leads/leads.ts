import { Lead, type Partner } from '../../db/entities';
import { nextId } from '../../db/id-blocks';
import type { ScopedQuery } from '../../db/scoped-query';
import type { ScopedData } from '../../db/scoped-data';
import { AppError, notFound } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { mayMatchTransliterated, transliteratedSql } from '../../lib/search-spellings';
import type { StartOptions } from '../../lib/temporal/workflow-starter';
import { workflowIds } from '../../workflows/ids';
import { leadDedupeWorkflow } from '../../workflows/lead-dedupe';
import type { LeadCreate, LeadUpdate } from '../../contracts/lead';
import { recordPendingEnrollment, startPendingEnrollment } from '../campaigns/auto-enroll';
import { activeEnrollmentsOf, stopEnrollments } from '../campaigns/signal-enrollments';
import type { DomainContext } from '../context';
import { claimDedupeKeys } from './dedupe-keys';
import { deleteIdentities, findDuplicates, syncIdentities, type DuplicateReason } from './identities';
import {
  defaultLeadStatusHint,
  holdLeadStatus,
  leadStatusCodes,
  rememberDefaultLeadStatus,
  resolveLeadStatus,
  unknownLeadStatusMessage,
} from './statuses';
import { normalizeEmail, normalizePhone } from '../normalize';
import { assertCustomFieldCount, changedCustomFields, patchCustomFields } from './custom-fields';
import { PHONE_MATCH_DIGITS, splitPhoneNumbers } from '../phone-search';
import { resolveReferralCode } from '../referral-codes';
import { assertAssignable } from '../scoped-lookups';
import { detachFiles } from '../files';
import { indexLead, removeFromIndex } from '../search-index';
import { relayCommitted, unitOfWork } from '../unit-of-work';
import { insertLead } from './grouped-creates';
import type { NewLeadRow } from './write-leads';

export interface LeadFilters {
  page: number;
  limit: number;
  sort: { field: 'createdAt' | 'updatedAt' | 'score' | 'email' | 'lastName'; direction: 'ASC' | 'DESC' };
  status?: string[];
  source?: string[];
  assignedTo?: string;
  q?: string;
  scoreMin?: number;
  scoreMax?: number;
  createdFrom?: string;
  createdTo?: string;
  updatedFrom?: string;
  updatedTo?: string;
  /** customFields.<key>=<value>: exact match on the value's text. */
  customFields?: Record<string, string>;
}

/** Lookups of a create's status before it gives up (see createLead's loop). */
const STATUS_LOOKUPS = 3;

/**
 * The hot path of the API (`npm run bench`, T2): one statement writes the lead with its key
 * claims, cluster rows, search document, outbox event, audit entry and the enrollments its
 * creation triggers (insertLead: writeLeads, shared with concurrent creates under load). A lead
 * that claims all its keys has no duplicate and is marked checked at once; only the others start a
 * lead-dedupe workflow. An email or phone that many leads share already (common, a placeholder)
 * needs no check either. The lead's ID is reserved ahead (nextId) so the document and the event,
 * which carry its public ID, can be written by the same statement. The status is checked, and
 * held until the lead commits, by the statement itself; a miss (unknown code, stale default,
 * statuses not seeded yet) takes the slow path: the status looked up, then written. A status
 * deleted between the two is looked up again, and so answers the 422 of an unknown status.
 */
export async function createLead(ctx: DomainContext, input: LeadCreate): Promise<Lead> {
  await assertAssignable(ctx.data, input.assignedTo, 'assignedTo');
  const partner = input.referralCode ? await resolveReferralCode(ctx.data, input.referralCode, 'referralCode') : null;
  const row = await newLeadRow(ctx, input, partner);
  const hinted = input.status ?? defaultLeadStatusHint(ctx.db, ctx.scope);
  let created = hinted === undefined ? null : await insertLead(ctx, { ...row, status: hinted }, input.status === undefined);
  // Each pass that misses follows a delete (or a move of the default) committed since the last
  // lookup: a named status is then unknown (422) at the next lookup; only a default that keeps
  // moving could miss every time, and is answered after a few passes rather than chased forever.
  for (let pass = 1; !created; pass++) {
    if (pass > STATUS_LOOKUPS)
      throw new AppError('conflict', "The tenant's default lead status kept changing while the lead was created; send the request again");
    const status = await resolveLeadStatus(ctx.data, input.status);
    if (input.status === undefined) rememberDefaultLeadStatus(ctx.db, ctx.scope, status);
    created = await insertLead(ctx, { ...row, status }, false);
  }
  const { lead, events, pending } = created;
  relayCommitted(ctx, events);
  if (!lead.duplicatesCheckedAt) startDuplicateDetection(ctx, lead);
  startPendingEnrollment(ctx, pending);
  return lead;
}

async function newLeadRow(ctx: DomainContext, input: LeadCreate, partner: Partner | null): Promise<Omit<NewLeadRow, 'status'>> {
  return {
    id: await nextId(ctx.db, Lead),
    ...ctx.scope,
    email: input.email,
    emailNormalized: normalizeEmail(input.email),
    firstName: input.firstName,
    lastName: input.lastName,
    phone: input.phone ?? null,
    phoneNormalized: normalizePhone(input.phone),
    source: input.source ?? (partner ? 'referral' : 'api'),
    score: input.score ?? 0,
    assignedTo: input.assignedTo === undefined ? ctx.actorUserId : input.assignedTo, // null: unassigned (spec 2.4)
    createdBy: ctx.actorUserId,
    customFields: input.customFields ?? {},
    partnerId: partner?.id ?? null,
  };
}

/**
 * Duplicate detection is asynchronous (spec part 3) for a lead that shares a key with another,
 * and so is its start: the request does not wait for Temporal. A lead whose start was dropped or
 * lost stays unchecked (duplicates_checked_at null) until the lead-dedupe sweep starts its workflow.
 */
export function startDuplicateDetection(ctx: DomainContext, lead: Pick<Lead, 'id' | 'tenantId' | 'environment'>): void {
  ctx.workflows.startSoon(leadDedupeWorkflow, leadDedupeStart(lead));
}

export function leadDedupeStart(lead: Pick<Lead, 'id' | 'tenantId' | 'environment'>): StartOptions<typeof leadDedupeWorkflow> {
  const leadId = encodeId('lead', lead.id);
  return {
    workflowId: workflowIds.leadDedupe(leadId),
    args: [{ tenantId: lead.tenantId, environment: lead.environment, leadId: lead.id }],
    searchAttributes: { tenantId: encodeId('tenant', lead.tenantId), environment: lead.environment, leadId },
    memo: { summary: `Duplicate check for lead ${leadId}` },
  };
}

export async function getLead(ctx: DomainContext, id: string): Promise<Lead> {
  const lead = await ctx.data.repo(Lead).findById(id);
  if (!lead) throw notFound('Lead');
  return lead;
}

const SORT_COLUMNS: Record<LeadFilters['sort']['field'], string> = {
  createdAt: 'l.created_at',
  updatedAt: 'l.updated_at',
  score: 'l.score',
  email: 'l.email_normalized',
  lastName: 'l.last_name',
};

/**
 * `q` of GET /v1/leads: a substring, without case or accents (search_fold, migration
 * 1796020000000), of the name, the email, the phone as written or a custom field's value. The
 * pattern is folded once; the name and email are one string per lead (a newline apart, so no match
 * spans both), and custom fields are only looked into for leads nothing else of matched. A pattern
 * that may match by German spelling (mayMatchTransliterated) also matches a text when both have
 * their umlauts transliterated (`Mueller` finds Müller, `Müller` Mueller); any other pays nothing
 * for it.
 */
const textMatch = (param: string, transliterated: boolean) => {
  const holds = (text: string) => {
    const asWritten = `search_fold(${text}) LIKE (SELECT search_fold(:${param}))`;
    if (!transliterated) return asWritten;
    return `(${asWritten} OR search_fold(${transliteratedSql(text)}) LIKE (SELECT search_fold(${transliteratedSql(`:${param}`)})))`;
  };
  return `${holds(`l.first_name || ' ' || l.last_name || E'\\n' || l.email_normalized`)}
  OR l.phone LIKE :${param}
  OR EXISTS (SELECT 1 FROM jsonb_each_text(l.custom_fields) f WHERE ${holds('f.value')})`;
};
/**
 * A phone number in `q` also matches the leads whose phone matches its digits
 * (domain/phone-search.ts): one ends with the other, leading zeros aside, with at least 7 digits.
 */
const phoneMatch = (param: string) => `ltrim(l.phone_normalized, '0') LIKE '%' || :${param}
  OR (length(ltrim(l.phone_normalized, '0')) >= ${PHONE_MATCH_DIGITS} AND :${param} LIKE '%' || ltrim(l.phone_normalized, '0'))`;

/**
 * What each text match passes first: the lead's `search_text` (its texts folded, and transliterated
 * too where they have umlauts; migration AddLeadSearchText1796100000000) holds one of the text's
 * spellings (heldSpellings). A lead that cannot match is so passed over without folding its texts:
 * 300,000 leads took about 3 s to filter, a German spelling more than the API's statement timeout.
 * A lead whose search_text is not written goes by textMatch alone.
 */
const held = (param: string, spellings: string[]) => ({
  sql: `(l.search_text IS NULL${spellings.map((_, i) => ` OR l.search_text LIKE :${param}_${i}`).join('')})`,
  params: Object.fromEntries(spellings.map((spelling, i) => [`${param}_${i}`, spelling])),
});

/**
 * How search_text may hold a text, as LIKE patterns folded by PostgreSQL (search_fold, as textMatch
 * folds) in a query of their own, so the planner sees them as values: for a common one it reads the
 * newest leads until a page is full rather than every lead. Name, email and phone are held as
 * written, custom field values as JSON text, so a text with a character JSON escapes (a quote, a
 * backslash, a control character) is looked for escaped too: JSON.stringify escapes exactly as
 * PostgreSQL's jsonb output does (`\"`, `\\`, `\n` and the like, `\u001f` for the rest below a space).
 * Each spelling is also transliterated where the text may match so (mayMatchTransliterated).
 */
async function heldSpellings(ctx: DomainContext, texts: string[]): Promise<string[][]> {
  const written = texts.map((text) => [...new Set([text, JSON.stringify(text).slice(1, -1)])]);
  const rows = await ctx.data.sql<{ folded: string; transliterated: string }>(
    (q) => `SELECT search_fold(t) AS folded, search_fold(${transliteratedSql('t')}) AS transliterated
      FROM unnest(${q.value(written.flat().map(substring))}::text[]) WITH ORDINALITY AS u(t, n) ORDER BY n`,
  );
  let next = 0;
  return texts.map((text, i) => {
    const own = rows.slice(next, (next += written[i].length));
    return [...new Set(own.flatMap((r) => (mayMatchTransliterated(text) ? [r.folded, r.transliterated] : [r.folded])))];
  });
}

const substring = (text: string) => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The filter of `q`, as search splits it (splitPhoneNumbers): each run of words a substring, ANDed
 * with each phone number in it matching as its text or as a phone. `Anna +49 30 1234567` finds
 * Anna whose phone is `030 1234567`; as one substring it found nobody. Every text match passes
 * `held` first; a phone match reads only the lead's phone.
 */
async function filterByQuery(ctx: DomainContext, qb: ScopedQuery<Lead>, q: string): Promise<void> {
  const { numbers, words } = splitPhoneNumbers(q);
  const spellings = await heldSpellings(ctx, [...words, ...numbers.map((n) => n.text)]);
  const heldText = (param: string, text: string, i: number) => {
    const prefilter = held(`held${i}`, spellings[i]);
    return {
      sql: `(${prefilter.sql} AND (${textMatch(param, mayMatchTransliterated(text))}))`,
      params: { [param]: substring(text), ...prefilter.params },
    };
  };
  words.forEach((text, i) => {
    const match = heldText(`words${i}`, text, i);
    qb.andWhere(match.sql, match.params);
  });
  numbers.forEach((n, i) => {
    const match = heldText(`number${i}`, n.text, words.length + i);
    qb.andWhere(`(${match.sql} OR ${phoneMatch(`phone${i}`)})`, { ...match.params, [`phone${i}`]: n.digits });
  });
}

/** What a list's filters select, without its page and order: what an export walks. */
export type LeadSelection = Omit<LeadFilters, 'page' | 'limit' | 'sort'>;

/** The leads `f` selects, as a query to order and page (listLeads) or walk (leadsInOrder). */
async function selectedLeads(ctx: DomainContext, f: LeadSelection) {
  const qb = ctx.data.repo(Lead).select('l');
  if (f.status) qb.andWhere('l.status IN (:...status)', { status: f.status });
  if (f.source) qb.andWhere('l.source IN (:...source)', { source: f.source });
  if (f.assignedTo) qb.andWhere('l.assigned_to = :assignedTo', { assignedTo: f.assignedTo });
  if (f.scoreMin !== undefined) qb.andWhere('l.score >= :scoreMin', { scoreMin: f.scoreMin });
  if (f.scoreMax !== undefined) qb.andWhere('l.score <= :scoreMax', { scoreMax: f.scoreMax });
  if (f.createdFrom) qb.andWhere('l.created_at >= :createdFrom', { createdFrom: f.createdFrom });
  if (f.createdTo) qb.andWhere('l.created_at <= :createdTo', { createdTo: f.createdTo });
  if (f.updatedFrom) qb.andWhere('l.updated_at >= :updatedFrom', { updatedFrom: f.updatedFrom });
  if (f.updatedTo) qb.andWhere('l.updated_at <= :updatedTo', { updatedTo: f.updatedTo });
  for (const [i, [key, value]] of Object.entries(f.customFields ?? {}).entries()) {
    qb.andWhere(`l.custom_fields ->> :cfKey${i} = :cfValue${i}`, { [`cfKey${i}`]: key, [`cfValue${i}`]: value });
  }
  if (f.q) await filterByQuery(ctx, qb, f.q);
  return qb;
}

export async function listLeads(ctx: DomainContext, f: LeadFilters): Promise<{ rows: Lead[]; total: number }> {
  const qb = await selectedLeads(ctx, f);
  // The updatedAt index is partial (AddLeadsUpdatedIndex1796120000000): a sort by it without a time
  // compares updated_at all the same, or the page would sort the whole scope. (Not `IS NOT NULL`:
  // PostgreSQL drops that of a NOT NULL column before it looks for an index.)
  if (f.sort.field === 'updatedAt' && !f.updatedFrom && !f.updatedTo) qb.andWhere(`l.updated_at > '-infinity'`);
  qb.orderBy(SORT_COLUMNS[f.sort.field], f.sort.direction).addOrderBy('l.id', f.sort.direction);
  const [rows, total] = await qb.page(f.page, f.limit);
  // A status no lead can have (`New` for new) is a mistake, not an empty page: looked up only then,
  // or for a list, where the others' leads would hide it.
  if (f.status && (total === 0 || f.status.length > 1)) await assertLeadStatusFilter(ctx.data, f.status);
  return { rows, total };
}

const EXPORT_PAGE = 1_000;

/**
 * Every lead `f` selects, oldest first, a page at a time (the CSV export of any size, without the
 * deep OFFSETs paging would cost). Each page starts after the last lead of the one before, by
 * (createdAt, id); its createdAt is read as PostgreSQL's text, since a JavaScript Date drops the
 * microseconds and the page would start again at that lead. A lead created during the walk is
 * included if it sorts after where the walk is; one deleted is left out if not read yet.
 */
export async function leadsInOrder(ctx: DomainContext, f: LeadSelection): Promise<AsyncGenerator<Lead>> {
  // A status no lead has is a mistake, as for a list: checked before the answer starts, since the file is sent as it is read.
  if (f.status) await assertLeadStatusFilter(ctx.data, f.status);
  return walkLeads(ctx, f);
}

async function* walkLeads(ctx: DomainContext, f: LeadSelection): AsyncGenerator<Lead> {
  // Built once (a `q` looks its spellings up in the database): each page after the first only
  // sets where it starts.
  const qb = (await selectedLeads(ctx, f))
    .addSelect('l.created_at::text', 'cursor_at')
    .orderBy('l.created_at', 'ASC')
    .addOrderBy('l.id', 'ASC')
    .limit(EXPORT_PAGE);
  for (let first = true; ; first = false) {
    const { entities, raw } = await qb.getRawAndEntities<{ cursor_at: string }>();
    yield* entities;
    if (entities.length < EXPORT_PAGE) return;
    if (first) {
      qb.andWhere('l.created_at >= CAST(:afterAt AS timestamptz) AND (l.created_at, l.id) > (CAST(:afterAt AS timestamptz), :afterId)');
    }
    qb.setParameters({ afterAt: raw[raw.length - 1].cursor_at, afterId: entities[entities.length - 1].id });
  }
}

async function assertLeadStatusFilter(data: ScopedData, statuses: string[]): Promise<void> {
  const codes = await leadStatusCodes(data);
  const unknown = statuses.find((s) => !codes.includes(s));
  if (unknown === undefined) return;
  throw new AppError('bad_request', 'Invalid query parameters', [
    { field: 'status', message: unknownLeadStatusMessage(unknown, codes, statuses.length > 1) },
  ]);
}

export async function updateLead(ctx: DomainContext, id: string, patch: LeadUpdate): Promise<Lead> {
  const { lead, pending } = await unitOfWork(ctx, async (tx) => {
    const leads = tx.repo(Lead);
    const lead = await leads.findByIdForUpdate(id);
    if (!lead) throw notFound('Lead');
    await assertAssignable(tx, patch.assignedTo, 'assignedTo', lead.assignedTo);
    // Held until the commit, so a concurrent delete of the status waits for this lead, then refuses.
    if (patch.status !== undefined) patch = { ...patch, status: await holdLeadStatus(tx, patch.status) };
    const { customFields, ...fields } = patch;
    const changes = changedFields(lead, fields, customFields);
    Object.assign(lead, fields);
    if (patch.email) lead.emailNormalized = normalizeEmail(patch.email);
    if (patch.phone !== undefined) lead.phoneNormalized = normalizePhone(patch.phone);
    if (customFields) {
      lead.customFields = patchCustomFields(lead.customFields, customFields);
      assertCustomFieldCount(lead.customFields, 'customFields', 'This patch');
    }
    const saved = await leads.save(lead);
    if (patch.email || patch.phone !== undefined) {
      await claimDedupeKeys(tx, saved);
      await syncIdentities(tx, saved);
    }
    await indexLead(tx, saved);
    if (Object.keys(changes).length) await tx.emit('lead.updated', { id: lead.id, changes });
    const pending = 'status' in changes ? await recordPendingEnrollment(tx, 'lead_status_changed', [lead.id], ctx.actorUserId) : null;
    return { lead: saved, pending };
  });
  startPendingEnrollment(ctx, pending);
  return lead;
}

/** The fields a patch really changes, with their new values (IDs encoded, custom fields per key): lead.updated's `changes`. */
export function changedFields(lead: Lead, fields: Omit<LeadUpdate, 'customFields'>, customFields: Lead['customFields'] | undefined) {
  const changes: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields) as [keyof typeof fields, unknown][]) {
    if (value === undefined || lead[key] === value) continue;
    changes[key] = key === 'assignedTo' && value !== null ? encodeId('user', value as string) : value;
  }
  const customChanges = changedCustomFields(lead.customFields, customFields ?? {});
  if (Object.keys(customChanges).length) changes.customFields = customChanges;
  return changes;
}

/** Deletes a lead; its active enrollments exit at once (`lead_deleted`), not at their next step. */
export async function deleteLead(ctx: DomainContext, id: string): Promise<Lead> {
  const { lead, enrollments } = await unitOfWork(ctx, async (tx) => {
    const leads = tx.repo(Lead);
    const lead = await leads.findById(id);
    if (!lead) throw notFound('Lead');
    await leads.deleteById(id);
    await detachFiles(tx, 'lead', id);
    await deleteIdentities(tx, id);
    await removeFromIndex(tx, 'lead', encodeId('lead', id));
    await tx.emit('lead.deleted', lead);
    return { lead, enrollments: await activeEnrollmentsOf(tx, id) };
  });
  await stopEnrollments(ctx.workflows.client, enrollments, 'lead_deleted');
  return lead;
}

export async function listDuplicates(
  ctx: DomainContext,
  id: string,
): Promise<{ duplicates: { lead: Lead; reasons: DuplicateReason[] }[]; commonKeys: DuplicateReason[] }> {
  await getLead(ctx, id);
  const { duplicates, commonKeys } = await findDuplicates(ctx.data, id);
  if (!duplicates.length) return { duplicates: [], commonKeys };
  const found = await ctx.data
    .repo(Lead)
    .select('l')
    .andWhere('l.id IN (:...ids)', { ids: duplicates.map((d) => d.leadId) })
    .getMany();
  const byId = new Map(found.map((l) => [l.id, l]));
  return {
    duplicates: duplicates.flatMap((d) => {
      const lead = byId.get(d.leadId);
      return lead ? [{ lead, reasons: d.reasons }] : [];
    }),
    commonKeys,
  };
}
