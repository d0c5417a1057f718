import { ApplicationFailure, continueAsNew, patched, proxyActivities } from '@temporalio/workflow';
import type { LeadImportActivities } from '../activities/leads/import-leads';
import { LONG_ACTIVITY } from './long-activity';
import type { ScopeRef } from './types';

export interface LeadImportInput extends ScopeRef {
  importId: string;
  /** Who created the import: the leads' creator and assignee. */
  actorUserId: string;
  /** Byte offset where this run starts: after the CSV header at first, then where the last run stopped. */
  cursor: string;
  /** The chunk leaves its new leads' search documents to indexImportedLeads (runs started since that step exists). */
  indexLater?: boolean;
}

const { importLeadChunk, indexImportedLeads, finishLeadImport } = proxyActivities<LeadImportActivities>({
  // A chunk reads 5,000 rows and writes them in one transaction.
  ...LONG_ACTIVITY,
  retry: { initialInterval: '1 second', maximumInterval: '1 minute', maximumAttempts: 20 },
});

/** Keeps each run's history short: a 1,000,000-row file is 200 chunks. */
export const CHUNKS_PER_RUN = 200;

/**
 * `POST /v1/leads/imports` after its 202 (workflow ID `lead-import/<importId>`): one activity per
 * chunk of rows, each starting from the cursor the previous one committed, until the file is read;
 * then the import is marked completed (or failed) and its lead.import.completed event sent. A chunk
 * that ran but whose result was lost is called again with the same cursor and applies nothing twice.
 * The search documents of a chunk's new leads are written by an activity of their own while the
 * next chunk runs (at most one at a time), and the import completes only once all are written.
 */
export async function leadImportWorkflow(input: LeadImportInput): Promise<void> {
  const ref = { tenantId: input.tenantId, environment: input.environment, importId: input.importId, actorUserId: input.actorUserId };
  // Runs started before the index step existed keep writing the documents inside their chunks.
  const indexLater = patched('import-index-step');
  let cursor = input.cursor;
  let done = false;
  let indexing: Promise<unknown> = Promise.resolve();
  try {
    for (let chunks = 0; !done && chunks < CHUNKS_PER_RUN; chunks++) {
      const chunk = await importLeadChunk({ ...ref, cursor, ...(indexLater ? { indexLater } : {}) });
      ({ cursor, done } = chunk);
      if (chunk.indexRange) {
        await indexing;
        indexing = indexImportedLeads({ ...ref, range: chunk.indexRange });
        // Handled here so a failure while a chunk runs is not an unhandled rejection; awaited below.
        indexing.catch(() => undefined);
      }
    }
    await indexing;
  } catch (err) {
    await indexing.catch(() => undefined);
    const error = `The import stopped: ${err instanceof Error ? (err.cause instanceof Error ? err.cause.message : err.message) : String(err)}`;
    await finishLeadImport({ ...ref, error });
    throw ApplicationFailure.nonRetryable(error);
  }
  if (!done) await continueAsNew<typeof leadImportWorkflow>({ ...input, cursor });
  await finishLeadImport(ref);
}
