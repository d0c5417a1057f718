import type { AppDeps } from '../http/domain-context';
import type { AnyRoute } from '../http/route';
import { accountRoutes } from './account';
import { addonRoutes } from './addons';
import { agentRoutes } from './agents';
import { aiGenerationRoutes } from './ai-generation';
import { analyticsRoutes } from './analytics';
import { apiKeyRoutes } from './api-keys';
import { authRoutes } from './auth';
import { campaignEnrollmentRoutes } from './campaign-enrollments';
import { campaignRoutes } from './campaigns';
import { commissionRoutes } from './commissions';
import { communicationRoutes } from './communications';
import { courseRoutes } from './courses';
import { emailTemplateRoutes } from './email-templates';
import { fileRoutes } from './files';
import { formRoutes } from './forms';
import { landingPageRoutes } from './landing-pages';
import { changeFeedRoutes } from './change-feeds';
import { leadImportRoutes } from './lead-imports';
import { leadRoutes } from './leads';
import { operationRoutes } from './operations';
import { opportunityRoutes } from './opportunities';
import { partnerRoutes } from './partners';
import { providerRoutes } from './providers';
import { searchRoutes } from './search';
import { statusDefinitionRoutes } from './status-definitions';
import { senderRoutes } from './senders';
import { suppressionRoutes } from './suppressions';
import { taskRoutes } from './tasks';
import { teamRoutes } from './teams';
import { userRoutes } from './users';
import { webhookDeliveryRoutes } from './webhook-deliveries';
import { webhookRoutes } from './webhooks';
import { workflowDefinitionRoutes } from './sequence-definitions';

/** Every /v1 route. The OpenAPI document and the tenant-isolation tests walk this same list. */
export function apiRoutes(deps: AppDeps): AnyRoute[] {
  return [
    ...authRoutes(deps),
    ...apiKeyRoutes(deps),
    ...userRoutes(deps),
    ...teamRoutes(),
    ...accountRoutes(deps),
    // Before the lead and deal routes: /v1/leads/imports and /v1/{leads,opportunities}/changes are no record's :id.
    ...leadImportRoutes(deps),
    ...changeFeedRoutes(),
    ...leadRoutes(),
    ...opportunityRoutes(),
    ...formRoutes(deps),
    ...webhookRoutes(),
    ...webhookDeliveryRoutes(),
    ...statusDefinitionRoutes(),
    ...workflowDefinitionRoutes(),
    ...aiGenerationRoutes(deps),
    ...landingPageRoutes(),
    ...taskRoutes(),
    ...partnerRoutes(),
    ...commissionRoutes(),
    ...searchRoutes(),
    ...courseRoutes(),
    ...addonRoutes(),
    ...agentRoutes(),
    ...fileRoutes(deps),
    ...campaignRoutes(),
    ...campaignEnrollmentRoutes(),
    ...analyticsRoutes(),
    ...communicationRoutes(),
    ...emailTemplateRoutes(),
    ...suppressionRoutes(),
    ...operationRoutes(),
    ...senderRoutes(deps),
    ...providerRoutes(deps),
  ];
}
