import type { LeadImport as LeadImportEntity, LeadImportFailure as FailureEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import type { LeadImport, LeadImportFailure } from '../../contracts/lead-import';

/** Rows per second since the start, and the seconds left at that pace over the bytes not read yet. */
function pace(i: LeadImportEntity, now: Date): { rate: number | null; etaSeconds: number | null } {
  if (!i.startedAt) return { rate: null, etaSeconds: null };
  const seconds = Math.max(((i.completedAt ?? now).getTime() - i.startedAt.getTime()) / 1000, 0.001);
  const rate = Math.round((i.rowsRead / seconds) * 10) / 10;
  if (i.status !== 'running') return { rate, etaSeconds: i.status === 'completed' ? 0 : null };
  const read = Number(i.cursor);
  const etaSeconds = read > 0 ? Math.ceil(((i.fileSize - read) * seconds) / read) : null;
  return { rate, etaSeconds };
}

/**
 * Share of the file's bytes read. A queued import's cursor already stands past the header row
 * (read when the import was created, to check the mapping), which is no progress of its rows.
 */
function progress(i: LeadImportEntity): number {
  if (i.status === 'completed' || i.fileSize === 0) return 1;
  if (i.status === 'queued') return 0;
  return Math.min(1, Math.floor((Number(i.cursor) / i.fileSize) * 1000) / 1000);
}

export function serializeLeadImport(i: LeadImportEntity, now = new Date()): LeadImport {
  return {
    id: encodeId('leadImport', i.id),
    fileId: encodeId('file', i.fileId),
    format: i.format,
    mapping: i.mapping,
    onExisting: i.onExisting,
    emitLeadEvents: i.emitLeadEvents,
    triggerCampaigns: i.triggerCampaigns,
    status: i.status,
    rowsRead: i.rowsRead,
    created: i.created,
    updated: i.updated,
    skipped: i.skipped,
    failed: i.failed,
    rowCap: i.rowCap,
    progress: progress(i),
    ...pace(i, now),
    error: i.error,
    workflowId: i.workflowId,
    createdAt: i.createdAt.toISOString(),
    startedAt: i.startedAt?.toISOString() ?? null,
    completedAt: i.completedAt?.toISOString() ?? null,
  };
}

export const serializeImportFailure = (f: FailureEntity): LeadImportFailure => ({ line: f.line, reason: f.reason, raw: f.raw });
