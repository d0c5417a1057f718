import { In } from 'typeorm';
import { Lead, PendingEnrollment, User, type Partner } from '../../db/entities';
import { nextId } from '../../db/id-blocks';
import type { LeadCreate } from '../../contracts/lead';
import { AppError, type FieldError } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { startPendingEnrollment } from '../campaigns/auto-enroll';
import type { DomainContext } from '../context';
import { unassignableReason } from '../scoped-lookups';
import type { RelayedEvent } from '../webhooks/relay';
import { startDuplicateDetection } from './leads';
import { defaultLeadStatusHint, rememberDefaultLeadStatus, resolveLeadStatus } from './statuses';
import { normalizeEmail, normalizePhone } from '../normalize';
import { resolveReferralCode } from '../referral-codes';
import { relayCommitted } from '../unit-of-work';
import { writeWithAudit } from '../pending-audit';
import { writeLeads, type NewLeadRow } from './write-leads';

export type BatchItemResult =
  { index: number; status: 'created' | 'duplicate'; id: string } | { index: number; status: 'error'; errors: FieldError[] };

/**
 * Creates up to 100 leads with one statement (writeLeads), not a loop of single creates. Each lead
 * gets what a single create gives it: the event relayed
 * after commit, duplicate detection when it shares a key, `lead_created` campaigns. An item whose
 * references do not resolve (status, assignee, referral code) fails alone; an item with the same
 * normalised email as an earlier item of the batch is not created twice: it answers `duplicate`
 * with the earlier item's lead. Items without a status take the default this process last saw,
 * checked by the statement itself as a single create's (a round trip less per batch). The
 * statement holds every status it writes (writeLeads); when one was deleted since it was looked
 * up, or the hinted default is no longer the default, it writes nothing and the batch is written
 * again with its statuses looked up anew (an item whose status is gone then fails alone).
 */
export async function createLeadBatch(
  ctx: DomainContext,
  items: { index: number; input: LeadCreate }[],
  hintDefault = true,
): Promise<BatchItemResult[]> {
  const results = new Map<number, BatchItemResult>();
  const refs = await resolveReferences(ctx, items, { hintDefault });
  const firstByEmail = new Map<string, number>();
  const toCreate: { index: number; row: NewLeadRow }[] = [];
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
      },
    });
  }

  const rows = toCreate.map((c) => c.row);
  const written = rows.length ? await writeBatch(ctx, rows, refs.hintedDefault) : { events: [], unchecked: [], pending: null };
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
 * (`hintedDefault`): the statement that writes the leads must check it (heldLeadStatusesSql).
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
 * The batch's leads with its request's audit entry (writeLeads): only what follows needs comes
 * back (the events to relay, the leads still to check for duplicates, the pending enrollment).
 * Null when a status did not hold (writeLeads) and nothing was written.
 */
async function writeBatch(
  ctx: DomainContext,
  rows: NewLeadRow[],
  hintedDefault?: string,
): Promise<{ events: RelayedEvent[]; unchecked: string[]; pending: PendingEnrollment | null } | null> {
  return writeWithAudit(ctx, null, async (auditRow) => {
    const written = await writeLeads(ctx, rows, {
      hintedDefault,
      audits: auditRow ? [auditRow] : [],
      returning: ['id', 'duplicatesCheckedAt'],
    });
    if (!written) return { result: null, auditId: null };
    const { events, pending, leads } = written;
    const unchecked = leads.filter((l) => !l.duplicatesCheckedAt).map((l) => l.id);
    return { result: { events, unchecked, pending }, auditId: written.auditIds[0] ?? null };
  });
}

function assigneeErrors(userId: string | null | undefined, users: Map<string, User>): FieldError[] {
  const reason = userId ? unassignableReason(users.get(userId)) : null;
  return reason ? [{ field: 'assignedTo', message: reason }] : [];
}

/** The partner a resolved referral code names (codes are matched upper-cased, as resolveReferences keys them). */
export const referredBy = (partners: Map<string, Partner>, code: string | undefined): Partner | null =>
  code ? (partners.get(code.toUpperCase()) ?? null) : null;
