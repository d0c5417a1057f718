import { ApplicationFailure } from '@temporalio/activity';
import type { DataSource } from 'typeorm';
import { createDomainContext } from '../../domain/context';
import { importChunk, type ImportChunkResult } from '../../domain/leads/import-chunk';
import { finishLeadImport } from '../../domain/leads/imports';
import { AppError } from '../../lib/errors';
import type { FileStorage } from '../../lib/files/file-storage';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { LeadImportInput } from '../../workflows/lead-import';

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
  const contextOf = (input: Omit<LeadImportInput, 'cursor'>) =>
    createDomainContext({
      db,
      scope: { tenantId: input.tenantId, environment: input.environment },
      actorUserId: input.actorUserId,
      workflows,
    });
  return {
    /** One chunk of rows from `cursor`; a chunk already applied (a retry) only reports the stored state. */
    importLeadChunk: (input: LeadImportInput): Promise<ImportChunkResult> =>
      classified(() => importChunk(contextOf(input), files, input.importId, input.cursor)),

    finishLeadImport: (input: Omit<LeadImportInput, 'cursor'> & { error?: string }): Promise<void> =>
      finishLeadImport(contextOf(input), input.importId, { error: input.error }),
  };
}

export type LeadImportActivities = ReturnType<typeof createLeadImportActivities>;
