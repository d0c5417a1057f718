import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { TenantScope } from '../../db/scoped-repository';

/** Custom search attributes on every workflow, so operators can filter runs in the Temporal UI. */
const TenantIdKey = defineSearchAttributeKey('TenantId', SearchAttributeType.KEYWORD);
const EnvironmentKey = defineSearchAttributeKey('Environment', SearchAttributeType.KEYWORD);
const CampaignIdKey = defineSearchAttributeKey('CampaignId', SearchAttributeType.KEYWORD);
const LeadIdKey = defineSearchAttributeKey('LeadId', SearchAttributeType.KEYWORD);

export const SEARCH_ATTRIBUTE_KEYS = [TenantIdKey, EnvironmentKey, CampaignIdKey, LeadIdKey];

export interface SearchAttributeValues {
  /** Encoded (public) IDs, the ones an operator sees in the API. */
  tenantId: string;
  environment: TenantScope['environment'];
  campaignId?: string;
  leadId?: string;
}

export function searchAttributePairs(v: SearchAttributeValues): SearchAttributePair[] {
  const pairs: SearchAttributePair[] = [
    { key: TenantIdKey, value: v.tenantId },
    { key: EnvironmentKey, value: v.environment },
  ];
  if (v.campaignId) pairs.push({ key: CampaignIdKey, value: v.campaignId });
  if (v.leadId) pairs.push({ key: LeadIdKey, value: v.leadId });
  return pairs;
}

/** `temporal server start-dev --search-attribute Name=Keyword` flags for the same keys. */
export function devServerSearchAttributeFlags(): string[] {
  return SEARCH_ATTRIBUTE_KEYS.flatMap((k) => ['--search-attribute', `${k.name}=Keyword`]);
}
