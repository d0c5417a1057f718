/** Readable, deterministic workflow IDs (business keys): Temporal itself refuses duplicates. */
export const workflowIds = {
  leadDedupe: (encodedLeadId: string) => `lead-dedupe/${encodedLeadId}`,
  leadConversion: (encodedLeadId: string) => `lead-conversion/${encodedLeadId}`,
  webhookDelivery: (encodedEventId: string, encodedEndpointId: string) => `webhook/${encodedEventId}/${encodedEndpointId}`,
  /** Tenant and environment are part of the ID, and the last key is server-made: no caller picks or joins a run. */
  aiGeneration: (encodedTenantId: string, environment: string, kind: string, generationId: string) =>
    `ai/${encodedTenantId}/${environment}/${kind}/${generationId}`,
  campaignEnrollment: (encodedCampaignId: string, encodedLeadId: string) => `campaign/${encodedCampaignId}/lead/${encodedLeadId}`,
  /** One per operation: pausing, resuming or completing a campaign signals its enrollments from here. */
  campaignTransition: (encodedCampaignId: string, encodedOperationId: string) =>
    `campaign-transition/${encodedCampaignId}/${encodedOperationId}`,
  webhookRecover: (encodedEndpointId: string, encodedOperationId: string) => `webhook-recover/${encodedEndpointId}/${encodedOperationId}`,
  leadImport: (encodedImportId: string) => `lead-import/${encodedImportId}`,
  /** One per lead write that starts campaigns: the enrollments it triggered, made after the answer. */
  autoEnroll: (encodedPendingId: string) => `auto-enroll/${encodedPendingId}`,
  message: (channel: 'email' | 'sms', encodedMessageId: string) => `${channel}/${encodedMessageId}`,
};
