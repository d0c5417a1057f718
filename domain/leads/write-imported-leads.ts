import { In } from 'typeorm';
import { Lead, LeadDedupeKey, LeadIdentity, type LeadImport } from '../../db/entities';
import type { CopyValue } from '../../db/copy-rows';
import type { LeadCreate } from '../../contracts/lead';
import type { DomainContext } from '../context';
import { normalizeEmail, normalizePhone } from '../normalize';
import { leadSearchDocument, upsertSearchDocuments } from '../search-index';
import type { UnitOfWork } from '../unit-of-work';
import { insertLeadEvents } from './write-leads';
import { dedupeKeys } from './dedupe-keys';
import { changedFields } from './leads';
import { tooManyCustomFields } from './custom-fields';
import { MAX_CUSTOM_FIELDS } from '../../contracts/lead';
import { describeErrors } from './import-rows';

/** A validated row; `status` is the resolved code when the row named one, `partnerId` the partner its referral code names. */
export interface ValidRow {
  line: number;
  /** The record as read: what a failure found later (in the chunk's transaction) stores. */
  raw: Record<string, unknown>;
  input: LeadCreate;
  status: string | null;
  partnerId: string | null;
}

export type CreatedLead = Pick<Lead, 'id'>;

/** A row the chunk's statements found it could not apply. */
export interface FailedRow {
  line: number;
  raw: Record<string, unknown>;
  reason: string;
}

type NewLead = Pick<
  Lead,
  | 'id'
  | 'email'
  | 'emailNormalized'
  | 'firstName'
  | 'lastName'
  | 'phone'
  | 'phoneNormalized'
  | 'source'
  | 'status'
  | 'score'
  | 'assignedTo'
  | 'partnerId'
  | 'customFields'
>;

const STAGE_COLUMNS = [
  'ord',
  'action',
  'id',
  'email',
  'email_normalized',
  'first_name',
  'last_name',
  'phone',
  'phone_normalized',
  'status',
  'score',
  'assigned_to',
  'partner_id',
  'custom_fields',
];

/**
 * Writes one chunk's valid rows with set-based statements: the rows are COPYed into a staging table
 * of the transaction, and INSERT ... SELECT / UPDATE ... FROM move them into leads, with the same
 * dedupe-key claims, cluster rows and search documents a batch create writes. Which rows create and
 * which update or skip is decided here, in file order, from one lookup of the chunk's emails: under
 * `skip` and `update` the first row of a new email creates the lead and later ones count as existing.
 * New leads take `ids` (ascending, at least one per row) and createdAt in file order, after every
 * lead the scope already has. `indexLater`: the new leads' search documents are left to the
 * import's index step (import-search-index.ts); an update's are written here.
 */
export async function writeImportedLeads(
  tx: UnitOfWork,
  ctx: DomainContext,
  imp: LeadImport,
  rows: ValidRow[],
  defaultStatus: string | null,
  ids: string[],
  indexLater: boolean,
): Promise<{ created: CreatedLead[]; updated: number; skipped: number; failed: FailedRow[]; statusChanged: string[] }> {
  if (!rows.length) return { created: [], updated: 0, skipped: 0, failed: [], statusChanged: [] };
  const existing = new Set<string>();
  if (imp.onExisting !== 'create') {
    const emails = [...new Set(rows.map((r) => normalizeEmail(r.input.email)))];
    const found = await tx.sql<{ e: string }>(
      (q) =>
        `SELECT DISTINCT l.email_normalized AS e FROM ${q.from(Lead, 'l')} WHERE l.email_normalized = ANY(${q.value(emails)}::varchar[])`,
    );
    for (const f of found) existing.add(f.e);
  }
  const inserts: ValidRow[] = [];
  const updates: ValidRow[] = [];
  let skipped = 0;
  for (const row of rows) {
    const email = normalizeEmail(row.input.email);
    if (imp.onExisting === 'create' || !existing.has(email)) {
      inserts.push(row);
      existing.add(email);
    } else if (imp.onExisting === 'update') updates.push(row);
    else skipped++;
  }

  const leads = inserts.map((row, i): NewLead => ({
    id: ids[i],
    email: row.input.email,
    emailNormalized: normalizeEmail(row.input.email),
    firstName: row.input.firstName,
    lastName: row.input.lastName,
    phone: row.input.phone ?? null,
    phoneNormalized: normalizePhone(row.input.phone),
    source: 'import',
    status: row.status ?? (defaultStatus as string),
    score: row.input.score ?? 0,
    assignedTo: row.input.assignedTo ?? ctx.actorUserId,
    partnerId: row.partnerId,
    customFields: row.input.customFields ?? {},
  }));
  await stage(tx, leads, updates);
  const created = await insertStaged(tx, ctx);
  if (!indexLater) await upsertSearchDocuments(tx, leads.map(leadSearchDocument));
  if (imp.emitLeadEvents) tx.events.push(...(await insertLeadEvents(tx, 'lead.created', leads)));
  const failed = updates.some((u) => Object.keys(u.input.customFields ?? {}).length) ? await failOverCap(tx, updates) : [];
  // What each update changed is read only when events or status-change campaigns were asked for.
  const withChanges = imp.emitLeadEvents || imp.triggerCampaigns;
  const { applied, changes } = updates.length > failed.length ? await updateFromStaged(tx, withChanges) : { applied: 0, changes: [] };
  if (imp.emitLeadEvents) tx.events.push(...(await insertLeadEvents(tx, 'lead.updated', changes)));
  const statusChanged = changes.filter((c) => 'status' in c.changes).map((c) => c.id);
  // Every `update` row that did not fail counts as updated, also when a later row of its email superseded it.
  return { created, updated: applied ? updates.length - failed.length : 0, skipped, failed, statusChanged };
}

/**
 * The update rows whose custom fields, added to a lead's with their email, would give it more than
 * MAX_CUSTOM_FIELDS: they fail, as a PATCH that would is a 422, and leave the staging table, so the
 * email's last other row wins. Each row is judged against the lead as the chunk found it (its new
 * leads included), which is what it would be applied to: only one row of an email is applied.
 */
async function failOverCap(tx: UnitOfWork, updates: ValidRow[]): Promise<FailedRow[]> {
  const over = await tx.sql<{ ord: number; count: number }>((q) => {
    const merged = `(SELECT count(*) FROM jsonb_object_keys(l.custom_fields || s.custom_fields))`;
    return `DELETE FROM lead_import_stage s USING ${q.table(Lead)} l
      WHERE s.action = 'update' AND ${q.scope('l')} AND l.email_normalized = s.email_normalized AND ${merged} > ${MAX_CUSTOM_FIELDS}
      RETURNING s.ord, ${merged}::int AS count`;
  });
  return over.map(({ ord, count }) => ({
    line: updates[ord].line,
    raw: updates[ord].raw,
    reason: describeErrors([
      { field: 'customFields', message: tooManyCustomFields(count, "This row's custom fields, added to the lead's,") },
    ]),
  }));
}

async function stage(tx: UnitOfWork, leads: NewLead[], updates: ValidRow[]) {
  await tx.sql(
    () => `CREATE TEMP TABLE lead_import_stage (ord integer, action varchar(6), id bigint, email varchar(320), email_normalized varchar(320),
      first_name varchar(100), last_name varchar(100), phone varchar(40), phone_normalized varchar(20), status varchar(40), score integer,
      assigned_to bigint, partner_id bigint, custom_fields jsonb) ON COMMIT DROP`,
  );
  await tx.sql(() => `CREATE TEMP TABLE lead_import_keys (id bigint, key varchar(330)) ON COMMIT DROP`);
  const rows: CopyValue[][] = [
    ...leads.map((l, ord): CopyValue[] => [
      ord,
      'insert',
      l.id,
      l.email,
      l.emailNormalized,
      l.firstName,
      l.lastName,
      l.phone,
      l.phoneNormalized,
      l.status,
      l.score,
      l.assignedTo,
      l.partnerId,
      JSON.stringify(l.customFields),
    ]),
    ...updates.map((u, ord): CopyValue[] => [
      ord,
      'update',
      null,
      u.input.email,
      normalizeEmail(u.input.email),
      u.input.firstName,
      u.input.lastName,
      u.input.phone ?? null,
      normalizePhone(u.input.phone),
      u.status,
      u.input.score ?? null,
      u.input.assignedTo ?? null,
      null, // an update keeps the lead's partner, as PATCH (which takes no referral code) does
      JSON.stringify(u.input.customFields ?? {}),
    ]),
  ];
  await tx.copyIntoStaging('lead_import_stage', STAGE_COLUMNS, rows);
  await tx.copyIntoStaging(
    'lead_import_keys',
    ['id', 'key'],
    leads.flatMap((l) => dedupeKeys(l).map((key) => [l.id, key])),
  );
  // A fresh temporary table has no statistics: without them the joins below are planned as nested
  // loops over thousands of rows. Only the columns the statements below join, filter or sort on
  // get them: the names, phones and custom fields tripled the ANALYZE (psql, 5,000 rows: 35-48 ms
  // for every column, 12-17 ms for these). The keys are only read through, never joined.
  await tx.sql(() => `ANALYZE lead_import_stage (action, ord, id, email_normalized)`);
}

/**
 * Key claims first (in key order, so concurrent writers lock alike), then the leads and their
 * cluster rows. Every new lead is written checked: its clusters commit with it, and the chunk,
 * itself background work, is its duplicate detection. A lead-dedupe workflow per lead sharing a
 * key, as a single create starts, flooded the task queue with files whose leads share phones
 * (docs/decisions.md, "Bulk lead import").
 */
async function insertStaged(tx: UnitOfWork, ctx: DomainContext): Promise<CreatedLead[]> {
  await tx.sql((q) => {
    const [tenant, env] = q.scopeValues();
    return `INSERT INTO ${q.table(LeadDedupeKey)} (tenant_id, environment, key, lead_id)
      SELECT ${tenant}, ${env}, k.key, k.id FROM lead_import_keys k ORDER BY k.key ON CONFLICT DO NOTHING`;
  });
  const created = await tx.sql<CreatedLead>((q) => {
    const [tenant, env] = q.scopeValues();
    const actor = `${q.value(ctx.actorUserId)}::bigint`;
    return `INSERT INTO ${q.table(Lead)} (id, tenant_id, environment, email, email_normalized, first_name, last_name, phone, phone_normalized,
        source, status, score, assigned_to, partner_id, created_by, custom_fields, duplicates_checked_at, created_at, updated_at)
      OVERRIDING SYSTEM VALUE
      SELECT s.id, ${tenant}, ${env}, s.email, s.email_normalized, s.first_name, s.last_name, s.phone, s.phone_normalized,
        'import', s.status, s.score, s.assigned_to, s.partner_id, ${actor}, s.custom_fields,
        now(),
        b.at + s.ord * interval '1 microsecond', b.at + s.ord * interval '1 microsecond'
      FROM lead_import_stage s,
        (SELECT GREATEST(now(), max(l.created_at) + interval '1 microsecond') AS at FROM ${q.from(Lead, 'l')}) b
      WHERE s.action = 'insert' ORDER BY s.ord
      RETURNING id::text AS id`;
  });
  await tx.sql((q) => {
    const [tenant, env] = q.scopeValues();
    // The new leads' rows: none can exist yet, so no ON CONFLICT check (see writeLeads).
    return `INSERT INTO ${q.table(LeadIdentity)} (tenant_id, environment, key, lead_id)
      SELECT ${tenant}, ${env}, k.key, k.id FROM lead_import_keys k`;
  });
  return created;
}

/**
 * Applies `update` rows to the leads with their email, the last row of an email winning; a value
 * the row leaves empty keeps the lead's, custom fields merge. The leads' search documents and
 * clusters follow their new values. Returns how many leads it updated and, when `withChanges`
 * (lead.updated events or campaigns were asked for), the changes of those whose values changed, as PATCH reports
 * them: the rows are then read, locked, before the update, so the comparison is with what it replaced.
 */
async function updateFromStaged(
  tx: UnitOfWork,
  withChanges: boolean,
): Promise<{ applied: number; changes: { id: string; changes: Record<string, unknown> }[] }> {
  const before = withChanges
    ? await tx.sqlEntities(
        Lead,
        (q) => `SELECT ${q.columns(Lead, 'l')} FROM ${q.table(Lead)} l WHERE ${q.scope('l')}
          AND l.email_normalized IN (SELECT email_normalized FROM lead_import_stage WHERE action = 'update') FOR UPDATE`,
      )
    : [];
  const changed = await tx.sql<{ id: string }>(
    (q) => `UPDATE ${q.table(Lead)} l SET email = u.email, first_name = u.first_name, last_name = u.last_name,
        phone = COALESCE(u.phone, l.phone), phone_normalized = COALESCE(u.phone_normalized, l.phone_normalized),
        status = COALESCE(u.status, l.status), score = COALESCE(u.score, l.score), assigned_to = COALESCE(u.assigned_to, l.assigned_to),
        custom_fields = l.custom_fields || u.custom_fields,
        updated_at = now()
      FROM (SELECT DISTINCT ON (email_normalized) * FROM lead_import_stage WHERE action = 'update' ORDER BY email_normalized, ord DESC) u
      WHERE ${q.scope('l')} AND l.email_normalized = u.email_normalized
      RETURNING l.id::text AS id`,
  );
  if (!changed.length) return { applied: 0, changes: [] };
  const leads = await tx.repo(Lead).find({ where: { id: In(changed.map((c) => c.id)) } });
  await upsertSearchDocuments(tx, leads.map(leadSearchDocument));
  const wanted = leads.flatMap((l) => dedupeKeys(l).map((key) => ({ id: l.id, key })));
  await tx.sql((q) => {
    const [tenant, env] = q.scopeValues();
    const ids = q.value(wanted.map((w) => w.id));
    const keys = q.value(wanted.map((w) => w.key));
    return `WITH wanted AS (SELECT * FROM unnest(${ids}::bigint[], ${keys}::varchar[]) AS w(lead_id, key)),
      gone AS (DELETE FROM ${q.table(LeadIdentity)} i WHERE ${q.scope('i')} AND i.lead_id = ANY(${q.value(leads.map((l) => l.id))}::bigint[])
        AND NOT EXISTS (SELECT 1 FROM wanted w WHERE w.lead_id = i.lead_id AND w.key = i.key)),
      claims AS (INSERT INTO ${q.table(LeadDedupeKey)} (tenant_id, environment, key, lead_id)
        SELECT ${tenant}, ${env}, w.key, w.lead_id FROM wanted w ORDER BY w.key ON CONFLICT DO NOTHING)
      INSERT INTO ${q.table(LeadIdentity)} (tenant_id, environment, key, lead_id)
        SELECT ${tenant}, ${env}, w.key, w.lead_id FROM wanted w ON CONFLICT DO NOTHING`;
  });
  const byId = new Map(before.map((l) => [l.id, l]));
  const changes = leads.flatMap((l) => {
    const previous = byId.get(l.id);
    if (!previous) return [];
    // The fields an update row can set; a phone it left empty kept the lead's.
    const { email, firstName, lastName, status, score, assignedTo } = l;
    const fields = changedFields(
      previous,
      { email, firstName, lastName, phone: l.phone ?? undefined, status, score, assignedTo },
      l.customFields,
    );
    return Object.keys(fields).length ? [{ id: l.id, changes: fields }] : [];
  });
  return { applied: changed.length, changes };
}
