import type { DataSource } from 'typeorm';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { convertLead } from './convert-lead';
import { detectLeadDuplicates } from './detect-lead-duplicates';
import { sweepUncheckedLeads } from '../../domain/leads/dedupe-sweep';

/** Duplicate detection, its sweep, and the conversion of a lead into an opportunity. */
export function createLeadActivities(db: DataSource, workflows: WorkflowStarter) {
  return {
    detectLeadDuplicates: detectLeadDuplicates(db),
    convertLead: convertLead(db, workflows),
    sweepUncheckedLeads: (input: { minAgeMs: number; limit?: number }) => sweepUncheckedLeads(db, workflows, input),
  };
}

export type LeadActivities = ReturnType<typeof createLeadActivities>;
