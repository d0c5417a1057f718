import type { DataSource } from 'typeorm';
import { Campaign, Lead } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { suppressionOf } from '../../domain/communications/email-suppressions';
import type { EnrollmentRef } from '.';
import { ScopedData } from '../../db/scoped-data';

export type Eligibility =
  | { eligible: true }
  | { eligible: false; reason: 'lead_deleted' | 'converted' | 'unsubscribed' | 'bounced' | 'campaign_paused' | 'campaign_completed' };

/**
 * Checked before every send and action: a lead that converted or unsubscribed, or whose address
 * is suppressed (email_suppressions: unsubscribed or bounced), leaves the sequence. The campaign's status is read too, so a pause or completion whose signal was lost
 * still holds or ends the enrollment.
 */
export function checkLeadEligibility(db: DataSource) {
  return async (ref: EnrollmentRef): Promise<Eligibility> => {
    const campaign = await scoped(db.manager, Campaign, ref).findById(ref.campaignId);
    if (!campaign || campaign.status === 'completed') return { eligible: false, reason: 'campaign_completed' };
    if (campaign.status === 'paused') return { eligible: false, reason: 'campaign_paused' };
    const lead = await scoped(db.manager, Lead, ref).findById(ref.leadId);
    if (!lead) return { eligible: false, reason: 'lead_deleted' };
    if (lead.convertedAt) return { eligible: false, reason: 'converted' };
    if (lead.unsubscribedAt) return { eligible: false, reason: 'unsubscribed' };
    // A bounce belongs to the address that bounced (the suppression list), not to the lead: its
    // bouncedAt may come from an address it no longer has, which a re-subscribe cannot clear.
    // The address may have opted out (or bounced) on another lead record: it decides too.
    const suppressed = await suppressionOf(new ScopedData(db.manager, ref), lead.email);
    if (suppressed) return { eligible: false, reason: suppressed };
    return { eligible: true };
  };
}

/** For `lead_status` conditions: decided at once from the lead's current status. */
export function leadHasStatus(db: DataSource) {
  return async (ref: EnrollmentRef & { status: string }): Promise<boolean> => {
    const lead = await scoped(db.manager, Lead, ref).findById(ref.leadId);
    return lead?.status === ref.status;
  };
}
