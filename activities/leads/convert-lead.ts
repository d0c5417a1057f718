import type { DataSource } from 'typeorm';
import { convertLead as convert, type ConversionOutcome } from '../../domain/opportunities/convert-lead';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { LeadConversionInput } from '../../workflows/types';

/**
 * The conversion's side effects. Idempotent: a retry after the transaction committed finds the
 * opportunity and reports already_converted with the same ID, which the workflow treats as done.
 */
export function convertLead(db: DataSource, workflows: WorkflowStarter) {
  return (input: LeadConversionInput): Promise<ConversionOutcome> =>
    convert(
      { db, workflows },
      {
        scope: { tenantId: input.tenantId, environment: input.environment },
        actorUserId: input.actorUserId,
        leadId: input.leadId,
        value: input.value,
        currency: input.currency,
        stageId: input.stageId,
        name: input.name,
      },
    );
}
