/** Plain data passed between the API, workflows and activities (database keys, not encoded IDs). */
export interface ScopeRef {
  tenantId: string;
  environment: 'live' | 'sandbox';
}

export interface LeadRef extends ScopeRef {
  leadId: string;
}

/** One event for one endpoint; `manual` re-sends even when an earlier run already finished. */
export interface WebhookDeliveryRef extends ScopeRef {
  eventId: string;
  endpointId: string;
  manual?: boolean;
}

export interface LeadConversionInput extends LeadRef {
  actorUserId: string;
  value?: number;
  currency?: string;
  stageId?: string;
  name?: string;
}

/** A lead write's automatic enrollments, recorded with it and made by the auto-enroll workflow. */
export interface PendingEnrollmentRef extends ScopeRef {
  pendingId: string;
}
