import { In } from 'typeorm';
import { LeadImport, LeadImportFailure, StoredFile, Tenant } from '../../db/entities';
import { unscoped } from '../../db/unscoped';
import type { LeadImportCreate } from '../../contracts/lead-import';
import { AppError, validationFailed } from '../../lib/errors';
import { objectKey, type FileStorage } from '../../lib/files/file-storage';
import { encodeId } from '../../lib/ids';
import { limitsFor } from '../../lib/plans';
import { csvRecords } from '../../lib/records/csv-records';
import { MAX_RECORD_BYTES } from '../../lib/records/file-record';
import { storableText } from '../../lib/unstorable-text';
import { workflowIds } from '../../workflows/ids';
import { leadImportWorkflow } from '../../workflows/lead-import';
import type { DomainContext } from '../context';
import { findOrFail, pageOf } from '../scoped-lookups';
import { unitOfWork } from '../unit-of-work';
import { mappedColumns } from './import-rows';

/** Imports of one tenant environment that may be unfinished at once (queued or running). */
export const MAX_CONCURRENT_IMPORTS = 3;
const MIN_ROW_CAP = 10_000;

/** The row counters are 32-bit integers. */
const MAX_ROW_CAP = 2 ** 31 - 1;

/** Rows one import may bring: ten times the plan's monthly calls, at least 10,000 (and what a counter holds). */
async function rowCapOf(ctx: DomainContext): Promise<number> {
  const tenant = await unscoped(ctx.db).repo(Tenant).findOneByOrFail({ id: ctx.scope.tenantId });
  return Math.min(MAX_ROW_CAP, Math.max(MIN_ROW_CAP, 10 * limitsFor(tenant).monthlyCalls));
}

/** Every row becomes an object with a key per column: a header wider than this would make each row cost that much. */
const MAX_IMPORT_COLUMNS = 1000;

/** The stream's first `limit` bytes, then its end (the rest is never read). */
async function* firstBytes(stream: AsyncIterable<Buffer>, limit: number): AsyncGenerator<Buffer> {
  let read = 0;
  for await (const chunk of stream) {
    if (read + chunk.length >= limit) {
      yield chunk.subarray(0, limit - read);
      return;
    }
    read += chunk.length;
    yield chunk;
  }
}

/**
 * A CSV file's header row and where the rows after it start; reads nothing past it, and at most a
 * record's limit of bytes while the request waits: a header that long is a 422.
 */
async function readHeader(storage: FileStorage, key: string): Promise<{ header: string[]; cursor: number; lines: number } | null> {
  for await (const record of csvRecords(firstBytes(await storage.open(key), MAX_RECORD_BYTES + 1))) {
    if (record.tooLong)
      throw validationFailed([{ field: 'fileId', message: `The file's header row is longer than ${MAX_RECORD_BYTES} bytes` }]);
    // Stored as jsonb, which holds no U+0000: a column name with one keeps it as U+FFFD.
    const header = storableText(record.values.map((name, i) => (i === 0 ? name.replace(/^\uFEFF/, '') : name).trim())) as string[];
    return { header, cursor: record.end, lines: record.linesAfter };
  }
  return null;
}

/**
 * Records an import of an uploaded file and starts its workflow after the commit. A CSV file's
 * header is read now, so a mapping naming a column the file lacks is a 422 before anything runs.
 * The count of unfinished imports is taken under a per-environment lock, so two requests cannot
 * both be the third.
 */
export async function createLeadImport(ctx: DomainContext, storage: FileStorage, input: LeadImportCreate): Promise<LeadImport> {
  const file = await ctx.data.repo(StoredFile).findById(input.fileId);
  if (!file) throw validationFailed([{ field: 'fileId', message: 'File not found' }]);
  if (file.status !== 'ready') throw new AppError('conflict', 'File upload is not complete yet');
  let start = { header: null as string[] | null, cursor: 0, lines: 0 };
  if (input.format === 'csv') {
    const read = await readHeader(storage, objectKey(ctx.scope, file.id));
    if (!read) throw validationFailed([{ field: 'fileId', message: 'The file has no header row' }]);
    if (read.header.length > MAX_IMPORT_COLUMNS) {
      throw validationFailed([
        { field: 'fileId', message: `The file's header has ${read.header.length} columns; an import reads at most ${MAX_IMPORT_COLUMNS}` },
      ]);
    }
    const missing = mappedColumns(input.mapping).filter((c) => !read.header.includes(c));
    if (missing.length) {
      throw validationFailed(missing.map((c) => ({ field: 'mapping', message: `Column "${c}" is not in the file's header` })));
    }
    start = read;
  }
  const rowCap = await rowCapOf(ctx);
  const created = await unitOfWork(ctx, async (tx) => {
    await tx.lockScope('lead-imports');
    const unfinished = await tx.repo(LeadImport).count({ status: In(['queued', 'running']) });
    if (unfinished >= MAX_CONCURRENT_IMPORTS) {
      throw new AppError(
        'conflict',
        `At most ${MAX_CONCURRENT_IMPORTS} imports can run at once in this environment; wait for one to complete (GET /v1/leads/imports)`,
      );
    }
    const imports = tx.repo(LeadImport);
    const row = await imports.insert({
      fileId: file.id,
      fileSize: file.size,
      format: input.format,
      mapping: input.mapping,
      header: start.header,
      onExisting: input.onExisting,
      emitLeadEvents: input.emitLeadEvents,
      triggerCampaigns: input.triggerCampaigns,
      rowCap,
      cursor: String(start.cursor),
      lines: start.lines,
      workflowId: 'pending',
      createdBy: ctx.actorUserId,
    });
    row.workflowId = workflowIds.leadImport(encodeId('leadImport', row.id));
    await imports.updateWhere({ id: row.id }, { workflowId: row.workflowId });
    return row;
  });
  try {
    await ctx.workflows.start(leadImportWorkflow, {
      workflowId: created.workflowId,
      args: [{ ...ctx.scope, importId: created.id, actorUserId: ctx.actorUserId, cursor: created.cursor }],
      searchAttributes: { tenantId: encodeId('tenant', ctx.scope.tenantId), environment: ctx.scope.environment },
      memo: { summary: `Import ${file.filename} into leads` },
    });
  } catch (err) {
    await ctx.data.repo(LeadImport).updateWhere({ id: created.id }, { status: 'failed', error: 'The import could not be started' });
    throw err;
  }
  return created;
}

export const getLeadImport = (ctx: DomainContext, id: string) => findOrFail(ctx.data, LeadImport, id, 'Import');

export function listLeadImports(ctx: DomainContext, page: number, limit: number) {
  return pageOf(ctx.data.repo(LeadImport).select('i').orderBy('i.created_at', 'DESC').addOrderBy('i.id', 'DESC'), page, limit);
}

/** Failed rows in file order; the import must be the caller's (404 otherwise). */
export async function listImportFailures(ctx: DomainContext, importId: string, page: number, limit: number) {
  await getLeadImport(ctx, importId);
  const qb = ctx.data
    .repo(LeadImportFailure)
    .select('f')
    .andWhere('f.import_id = :importId', { importId })
    .orderBy('f.line', 'ASC')
    .addOrderBy('f.id', 'ASC');
  return pageOf(qb, page, limit);
}

/**
 * Ends an import once: completed, or failed with the reason (an unreadable file, a deleted one).
 * The lead.import.completed event is written with the change, so a retried finish sends none twice.
 */
export async function finishLeadImport(ctx: DomainContext, importId: string, outcome: { error?: string }): Promise<void> {
  await unitOfWork(ctx, async (tx) => {
    const imp = await tx.repo(LeadImport).findByIdForUpdate(importId);
    if (!imp || imp.status === 'completed' || imp.status === 'failed') return;
    const status = outcome.error === undefined ? 'completed' : 'failed';
    const completedAt = new Date();
    await tx.repo(LeadImport).updateWhere({ id: importId }, { status, error: outcome.error ?? null, completedAt });
    await tx.emit('lead.import.completed', { ...imp, status, completedAt });
  });
}

const FAILURE_PAGE = 1_000;

/** Every failed row of an import in file order, a page at a time (for the CSV download of any size). */
export async function* importFailuresInOrder(ctx: DomainContext, importId: string): AsyncGenerator<LeadImportFailure> {
  let after = { line: 0, id: '0' };
  for (;;) {
    const page = await ctx.data
      .repo(LeadImportFailure)
      .select('f')
      .andWhere('f.import_id = :importId AND (f.line, f.id) > (:line, :id)', { importId, line: after.line, id: after.id })
      .orderBy('f.line', 'ASC')
      .addOrderBy('f.id', 'ASC')
      .limit(FAILURE_PAGE)
      .getMany();
    yield* page;
    if (page.length < FAILURE_PAGE) return;
    after = page[page.length - 1];
  }
}
