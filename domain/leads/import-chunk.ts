import { Lead, LeadIdentity, LeadImport, LeadImportFailure, StoredFile } from '../../db/entities';
import { refreshStatistics } from '../../db/statistics';
import { reserveIds } from '../../db/id-blocks';
import type { ImportStatus } from '../../db/entities/lead-import';
import { objectKey, type FileStorage } from '../../lib/files/file-storage';
import { logger } from '../../lib/logger';
import { csvRecords } from '../../lib/records/csv-records';
import { ndjsonRecords } from '../../lib/records/ndjson-records';
import type { DomainContext } from '../context';
import { findOrFail } from '../scoped-lookups';
import { unitOfWork, type UnitOfWork } from '../unit-of-work';
import { referredBy, resolveReferences } from './batch';
import { recordPendingEnrollment, startPendingEnrollment } from '../campaigns/auto-enroll';
import { describeErrors, rowOf, storableRow, type ImportRow } from './import-rows';
import { writeImportedLeads, type CreatedLead, type FailedRow, type ValidRow } from './write-imported-leads';
import type { CreatedRange } from './import-search-index';
import { holdLeadStatus, holdLeadStatuses, leadStatusCodes, unknownLeadStatus } from './statuses';

/** Rows per chunk: one activity, one transaction. */
export const IMPORT_CHUNK_ROWS = 5_000;

export interface ImportChunkResult {
  /** Byte offset of the next unread record; equal to the file's size once everything was read. */
  cursor: string;
  done: boolean;
  status: ImportStatus;
  rowsRead: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
  /** The leads this chunk created, when their search documents were left to the index step. */
  indexRange?: CreatedRange;
}

/** The import's state after a chunk; with `indexLater`, the range of leads its last applied chunk created. */
const resultOf = (imp: LeadImport, size: number, indexLater: boolean): ImportChunkResult => ({
  cursor: imp.cursor,
  done: Number(imp.cursor) >= size || imp.status === 'completed' || imp.status === 'failed',
  status: imp.status,
  rowsRead: imp.rowsRead,
  created: imp.created,
  updated: imp.updated,
  skipped: imp.skipped,
  failed: imp.failed,
  ...(indexLater && imp.chunkFirstLeadId && imp.chunkLastLeadId
    ? { indexRange: { from: imp.chunkFirstLeadId, to: imp.chunkLastLeadId } }
    : {}),
});

/** Up to `maxRows` records from byte `from`; `end` is the cursor after the last one (the size at the end of the file). */
async function readChunk(ctx: DomainContext, storage: FileStorage, imp: LeadImport, file: StoredFile, maxRows: number) {
  const from = Number(imp.cursor);
  const stream = await storage.open(objectKey(ctx.scope, file.id), { start: from });
  const records = imp.format === 'csv' ? csvRecords(stream) : ndjsonRecords(stream);
  const rows: ImportRow[] = [];
  let end = file.size;
  let lines = imp.lines;
  for await (const record of records) {
    rows.push(rowOf(imp.format, imp.mapping, imp.header, record, imp.lines + 1));
    lines = imp.lines + record.linesAfter;
    if (rows.length >= maxRows) {
      end = from + record.end;
      break;
    }
  }
  return { rows, end, lines };
}

/**
 * Applies the next chunk of an import if its cursor is still `from`: reads up to 5,000 rows from
 * that byte offset, validates them, then in one transaction locks the import row, checks the cursor
 * again, writes the leads and failures and advances cursor and counters. A retried chunk whose
 * transaction committed finds the cursor moved and only reports the stored state, so no row is
 * applied twice; one whose transaction did not commit applies the same rows again from scratch.
 * `indexLater`: the created leads' search documents are left to the import's index step, and the
 * result names the leads' range for it.
 */
export async function importChunk(
  ctx: DomainContext,
  storage: FileStorage,
  importId: string,
  from: string,
  { maxRows = IMPORT_CHUNK_ROWS, indexLater = false }: { maxRows?: number; indexLater?: boolean } = {},
): Promise<ImportChunkResult> {
  const imp = await findOrFail(ctx.data, LeadImport, importId, 'Import');
  const file = await findOrFail(ctx.data, StoredFile, imp.fileId, 'File');
  // A retry of a chunk that committed reports it again, its range of new leads included.
  const stale = resultOf(imp, file.size, indexLater);
  if (imp.cursor !== from || stale.done) return stale;

  const { rows, end, lines } = await readChunk(ctx, storage, imp, file, maxRows);
  const rowNumber = (i: number) => imp.rowsRead + i;
  const capped = rows.map((r, i) =>
    rowNumber(i) >= imp.rowCap && 'input' in r
      ? { line: r.line, raw: r.raw, reason: `Over the import's row cap of ${imp.rowCap} rows` }
      : r,
  );
  const candidates = capped.flatMap((r, index) => ('input' in r ? [{ index, input: r.input }] : []));
  const refs = await resolveReferences(ctx, candidates);
  const failures: FailedRow[] = [];
  const valid: ValidRow[] = [];
  capped.forEach((r, index) => {
    const problem = refs.problems.get(index);
    if ('reason' in r) failures.push(r);
    else if (problem) failures.push({ line: r.line, raw: r.raw, reason: describeErrors(problem) });
    else
      valid.push({
        line: r.line,
        raw: r.raw,
        input: r.input,
        status: r.input.status === undefined ? null : (refs.statuses.get(r.input.status) as string),
        partnerId: referredBy(refs.partners, r.input.referralCode)?.id ?? null,
      });
  });

  // Reserved before the transaction, one per valid row: asking the pool for a connection while the
  // transaction holds one could wait forever once every connection is held by a chunk.
  const ids = await reserveIds(ctx.db, Lead, valid.length);
  const outcome = await unitOfWork(ctx, async (tx) => {
    const locked = await tx.repo(LeadImport).findByIdForUpdate(importId);
    if (!locked || locked.cursor !== from) return { applied: null, imp: locked ?? imp };
    // Chunks of the scope's imports take turns: which emails exist is looked up inside, and two
    // imports of one file side by side would each create the leads the other had not committed.
    await tx.lockScope('lead-import-rows');
    const held = await holdRowStatuses(tx, valid, refs.statuses.get('') ?? null);
    const applied = await writeImportedLeads(tx, ctx, locked, held.rows, held.defaultStatus, ids, indexLater);
    const chunkFailures = [...failures, ...held.failures, ...applied.failed];
    await tx
      .repo(LeadImportFailure)
      .insertMany(chunkFailures.map((f) => ({ importId, line: f.line, reason: f.reason, raw: storableRow(f.raw) })));
    const range = rangeOf(applied.created);
    const counts = {
      rowsRead: locked.rowsRead + rows.length,
      created: locked.created + applied.created.length,
      updated: locked.updated + applied.updated,
      skipped: locked.skipped + applied.skipped,
      failed: locked.failed + chunkFailures.length,
      chunkFirstLeadId: range?.from ?? null,
      chunkLastLeadId: range?.to ?? null,
    };
    await tx
      .repo(LeadImport)
      .updateWhere(
        { id: importId },
        { ...counts, cursor: String(end), lines, status: 'running', startedAt: locked.startedAt ?? new Date() },
      );
    // Recorded with the chunk, so a worker that dies after the commit loses none of them.
    const pending = locked.triggerCampaigns
      ? [
          await recordPendingEnrollment(
            tx,
            'lead_created',
            applied.created.map((l) => l.id),
            ctx.actorUserId,
          ),
          await recordPendingEnrollment(tx, 'lead_status_changed', applied.statusChanged, ctx.actorUserId),
        ]
      : [];
    return { applied, pending, imp: Object.assign(locked, counts, { cursor: String(end), lines, status: 'running' as const }) };
  });

  if (outcome.applied) {
    for (const p of outcome.pending) startPendingEnrollment(ctx, p);
    if (statisticsStep(outcome.imp.created) > statisticsStep(outcome.imp.created - outcome.applied.created.length)) {
      await refreshStatistics(ctx.db, [Lead, LeadIdentity]).catch((err) =>
        logger.warn({ err, importId }, 'could not ANALYZE the leads tables; lookups of the next chunks may be slow'),
      );
    }
  }
  return resultOf(outcome.imp, file.size, indexLater);
}

/**
 * The chunk's statuses, looked up before its transaction, held from now until its commit
 * (holdLeadStatuses): a row whose status was deleted in between fails as an unknown status does,
 * and rows without one take the default as it is now (it may have moved, and the old one gone).
 */
async function holdRowStatuses(tx: UnitOfWork, valid: ValidRow[], defaultStatus: string | null) {
  const named = [...new Set(valid.flatMap((r) => (r.status === null ? [] : [r.status])))];
  const held = await holdLeadStatuses(tx, defaultStatus === null ? named : [...named, defaultStatus]);
  if (defaultStatus !== null && !held.has(defaultStatus)) defaultStatus = await holdLeadStatus(tx, undefined);
  const rows = valid.filter((r) => r.status === null || held.has(r.status));
  const unknown = valid.filter((r) => r.status !== null && !held.has(r.status));
  // The scope's statuses, for failures that name them and the one meant: looked up once a chunk, and only then.
  const codes = unknown.length ? await leadStatusCodes(tx) : [];
  const failures = unknown.map((r) => ({
    line: r.line,
    raw: r.raw,
    reason: describeErrors(unknownLeadStatus(r.status ?? undefined, codes).errors ?? []),
  }));
  return { rows, failures, defaultStatus };
}

function rangeOf(leads: CreatedLead[]): CreatedRange | null {
  if (!leads.length) return null;
  const ids = leads.map((l) => BigInt(l.id));
  const [min, max] = ids.reduce(([lo, hi], id) => [id < lo ? id : lo, id > hi ? id : hi], [ids[0], ids[0]]);
  return { from: String(min), to: String(max) };
}

/**
 * The import's leads at 1, 4, 16, 64, ... chunks' worth (5,000, 20,000, 80,000, ...): each step is
 * an ANALYZE of the leads' tables, so statistics keep up with a tenant's first large import. Before
 * it, the next chunk's lookup of existing emails walked all of the tenant's leads for each email
 * (statistics that had not seen the tenant made every scope index cost the same; the phone index,
 * since dropped, won): 100,000 rows into the shared test database took 82 s, 58 s of them in that lookup (0.6 s
 * with the ANALYZE), and the time grew with the square of the file.
 */
function statisticsStep(created: number): number {
  return created < IMPORT_CHUNK_ROWS ? 0 : 1 + Math.floor(Math.log(created / IMPORT_CHUNK_ROWS) / Math.log(4));
}
