import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { convertLead } from './convert-lead';
import { detectLeadDuplicates } from './detect-lead-duplicates';

export function createRecordActivities(db: DataSource, workflows: WorkflowStarter) {
  return {
    detectLeadDuplicates: detectLeadDuplicates(db),
    convertLead: convertLead(db, workflows),
  };
}

export type RecordActivities = ReturnType<typeof createRecordActivities>;
