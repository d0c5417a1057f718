import { proxyActivities } from '@temporalio/workflow';
import type { LeadActivities } from '../activities/leads';
import type { ConversionOutcome } from '../domain/opportunities/convert-lead';
import type { LeadConversionInput } from './types';

const { convertLead } = proxyActivities<LeadActivities>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '500 milliseconds', maximumInterval: '10 seconds', maximumAttempts: 10 },
});

/**
 * Converts a lead into an opportunity (workflow ID `lead-conversion/<leadId>`). The API awaits the
 * result. The ID makes concurrent conversions of one lead collide in Temporal, and the activity's
 * row lock makes a later one find the first opportunity.
 */
export async function leadConversionWorkflow(input: LeadConversionInput): Promise<ConversionOutcome> {
  return convertLead(input);
}
