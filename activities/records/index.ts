import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { convertLead } from './convert-lead';
import { detectLeadDuplicates } from './detect-lead-duplicates';
import { sweepUncheckedLeads } from '../../domain/lead-dedupe-sweep';
import { purgeIdempotencyKeys, type PurgeIdempotencyKeysInput } from '../../domain/idempotency-purge';

export function createRecordActivities(db: DataSource, workflows: WorkflowStarter) {
  return {
    detectLeadDuplicates: detectLeadDuplicates(db),
    convertLead: convertLead(db, workflows),
    sweepUncheckedLeads: (input: { minAgeMs: number }) => sweepUncheckedLeads(db, workflows, input),
    purgeIdempotencyKeys: (input: PurgeIdempotencyKeysInput) => purgeIdempotencyKeys(db, input),
  };
}

export type RecordActivities = ReturnType<typeof createRecordActivities>;
