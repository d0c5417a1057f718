import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { createDomainContext } from '../../domain/context';
import { importChunk, type ImportChunkResult } from '../../domain/leads/import-chunk';
import { finishLeadImport } from '../../domain/leads/imports';
import { indexImportedLeads, type CreatedRange } from '../../domain/leads/import-search-index';
import { AppError } from '../../lib/errors';
import type { FileStorage } from '../../lib/files/file-storage';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { LeadImportInput } from '../../workflows/lead-import';

type ImportRef = Omit<LeadImportInput, 'cursor'>;

/** The import or its file is gone: retrying cannot help, the workflow marks the import failed. */
async function classified<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof AppError && err.status < 500) throw ApplicationFailure.nonRetryable(err.message, 'ImportUnreadable');
    throw err;
  }
}

export function createLeadImportActivities(db: DataSource, workflows: WorkflowStarter, files: FileStorage) {
  const contextOf = (input: ImportRef) =>
    createDomainContext({
      db,
      scope: { tenantId: input.tenantId, environment: input.environment },
      actorUserId: input.actorUserId,
      workflows,
    });
  return {
    /** One chunk of rows from `cursor`; a chunk already applied (a retry) only reports the stored state. */
    importLeadChunk: (input: LeadImportInput): Promise<ImportChunkResult> =>
      classified(() => importChunk(contextOf(input), files, input.importId, input.cursor, { indexLater: input.indexLater })),

    /** The search documents of the leads a chunk created (its `indexRange`), beside the next chunk. */
    indexImportedLeads: (input: ImportRef & { range: CreatedRange }): Promise<number> => indexImportedLeads(contextOf(input), input.range),

    finishLeadImport: (input: ImportRef & { error?: string }): Promise<void> =>
      finishLeadImport(contextOf(input), input.importId, { error: input.error }),
  };
}

export type LeadImportActivities = ReturnType<typeof createLeadImportActivities>;
