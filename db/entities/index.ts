import { Addon, AddonInstallation } from './addon';
import { AgentExecution } from './agent-execution';
import { ApiKey } from './api-key';
import { AuditLog } from './audit-log';
import { Campaign } from './campaign';
import { CampaignEnrollment } from './campaign-enrollment';
import { Commission } from './commission';
import { TrainingCourse } from './course';
import { EmailTemplate } from './email-template';
import { EmailSuppression } from './email-suppression';
import { EmailSender } from './email-sender';
import { DkimKey } from './dkim-key';
import { EngagementEvent } from './engagement-event';
import { Form, FormSubmission } from './form';
import { IdempotencyKey } from './idempotency-key';
import { LandingPage } from './landing-page';
import { Lead } from './lead';
import { LeadDedupeKey } from './lead-dedupe-key';
import { ChangeFeedHorizon, LeadDeletion, OpportunityDeletion } from './change-feed';
import { LeadIdentity } from './lead-identity';
import { LeadImport, LeadImportFailure } from './lead-import';
import { LoginFailure } from './login-failure';
import { Message } from './message';
import { Operation } from './operation';
import { Opportunity } from './opportunity';
import { OutboxEvent } from './outbox-event';
import { Partner, PartnerReferralCode } from './partner';
import { PendingEnrollment } from './pending-enrollment';
import { RateCounter } from './rate-counter';
import { SearchDocument } from './search-document';
import { StatusDefinition } from './status-definition';
import { FileRemoval } from './file-removal';
import { StoredFile } from './stored-file';
import { Task } from './task';
import { Team, TeamMember } from './team';
import { Tenant } from './tenant';
import { User } from './user';
import { WebhookDelivery } from './webhook-delivery';
import { WebhookDeliveryAttempt } from './webhook-delivery-attempt';
import { WebhookEndpoint } from './webhook-endpoint';
import { SequenceDefinition } from './sequence-definition';
import { SequenceDefinitionVersion } from './sequence-definition-version';

export {
  ApiKey,
  AuditLog,
  IdempotencyKey,
  Lead,
  LeadDedupeKey,
  LeadDeletion,
  LeadIdentity,
  ChangeFeedHorizon,
  OpportunityDeletion,
  Team,
  TeamMember,
  Tenant,
  User,
};
export { OutboxEvent, WebhookDelivery, WebhookDeliveryAttempt, WebhookEndpoint };
export { LandingPage, StatusDefinition, SequenceDefinition, SequenceDefinitionVersion };
export { Form, FormSubmission, LeadImport, LeadImportFailure, Opportunity };
export { Commission, Partner, PartnerReferralCode, SearchDocument, Task };
export { Addon, AddonInstallation, AgentExecution, FileRemoval, StoredFile, TrainingCourse };
export {
  Campaign,
  CampaignEnrollment,
  PendingEnrollment,
  DkimKey,
  EmailSender,
  EmailSuppression,
  EmailTemplate,
  EngagementEvent,
  Message,
  Operation,
};
export * from './tenant-owned';

export const entities = [
  // tenancy and access
  ...[Tenant, User, Team, TeamMember, ApiKey, AuditLog, IdempotencyKey, RateCounter, LoginFailure],
  // records
  ...[
    Lead,
    LeadDedupeKey,
    LeadDeletion,
    OpportunityDeletion,
    ChangeFeedHorizon,
    LeadIdentity,
    Opportunity,
    Form,
    FormSubmission,
    Task,
    Partner,
    PartnerReferralCode,
    Commission,
    SearchDocument,
  ],
  ...[TrainingCourse, Addon, AddonInstallation, AgentExecution, StoredFile, FileRemoval, LeadImport, LeadImportFailure],
  // webhooks and the events outbox
  ...[OutboxEvent, WebhookEndpoint, WebhookDelivery, WebhookDeliveryAttempt],
  // definitions (AI generation round-trips through these)
  ...[StatusDefinition, SequenceDefinition, SequenceDefinitionVersion, LandingPage],
  // campaigns, communications and engagement
  ...[
    Campaign,
    CampaignEnrollment,
    PendingEnrollment,
    Message,
    EmailTemplate,
    EmailSuppression,
    EngagementEvent,
    Operation,
    EmailSender,
    DkimKey,
  ],
];
