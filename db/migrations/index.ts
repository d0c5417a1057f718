import type { MigrationInterface } from 'typeorm';
import { Initial1795306585251 } from './1795306585251-Initial';
import { AddAccessControl1795308613341 } from './1795308613341-AddAccessControl';
import { AddWebhooks1795308626680 } from './1795308626680-AddWebhooks';
import { AddDefinitions1795308695208 } from './1795308695208-AddDefinitions';
import { AddRecords1795309879039 } from './1795309879039-AddRecords';
import { AddOpportunities1795309954564 } from './1795309954564-AddOpportunities';
import { AddTrainingAddonsAgents1795310032435 } from './1795310032435-AddTrainingAddonsAgents';
import { AddCampaigns1795310471324 } from './1795310471324-AddCampaigns';
import { AddForms1795310504912 } from './1795310504912-AddForms';
import { AddFiles1795310569723 } from './1795310569723-AddFiles';
import { AddLeadsUncheckedIndex1795320000000 } from './1795320000000-AddLeadsUncheckedIndex';
import { AddFileStatus1795330000000 } from './1795330000000-AddFileStatus';
import { AddLeadDedupeKeys1795340000000 } from './1795340000000-AddLeadDedupeKeys';
import { ScopeIdempotencyKeysPerCaller1795350000000 } from './1795350000000-ScopeIdempotencyKeysPerCaller';
import { AddLoginFailures1795350000001 } from './1795350000001-AddLoginFailures';
import { AddEmailFormats1795352000000 } from './1795352000000-AddEmailFormats';
import { AddEmailSuppressions1795352100000 } from './1795352100000-AddEmailSuppressions';
import { AddLeadIdentities1795356000000 } from './1795356000000-AddLeadIdentities';
import { AddEngagementSettings1795357000000 } from './1795357000000-AddEngagementSettings';
import { AddOperations1795354000000 } from './1795354000000-AddOperations';
import { AddSendersAndDkimKeys1795358000000 } from './1795358000000-AddSendersAndDkimKeys';
import { AddLeadImports1795360000000 } from './1795360000000-AddLeadImports';
import { AddEngagementSignalWindow1795361000000 } from './1795361000000-AddEngagementSignalWindow';
import { DropRedundantScopeIndexes1795725190309 } from './1795725190309-DropRedundantScopeIndexes';
import { AddImportChunkLeadRange1795740000000 } from './1795740000000-AddImportChunkLeadRange';
import { AddPendingEnrollments1795820911457 } from './1795820911457-AddPendingEnrollments';
import { SearchVectorAsGeneratedColumn1795880000000 } from './1795880000000-SearchVectorAsGeneratedColumn';
import { DropUnreadLeadPhoneAndEventScopeIndexes1795900000000 } from './1795900000000-DropUnreadLeadPhoneAndEventScopeIndexes';
import { AddTaskOpportunityIndex1795960000000 } from './1795960000000-AddTaskOpportunityIndex';
import { AddAgentExecutionRejection1795970000000 } from './1795970000000-AddAgentExecutionRejection';
import { AddDkimKeyVerification1795980000000 } from './1795980000000-AddDkimKeyVerification';
import { DkimKeysPerSelector1795985000000 } from './1795985000000-DkimKeysPerSelector';
import { RenormalizeInternationalPhones1795990000000 } from './1795990000000-RenormalizeInternationalPhones';
import { AddSmsStatusCallbacks1796000000000 } from './1796000000000-AddSmsStatusCallbacks';
import { AddEventsCreatedIndex1796010000000 } from './1796010000000-AddEventsCreatedIndex';
import { SearchAccentsPhonesAndCustomFields1796020000000 } from './1796020000000-SearchAccentsPhonesAndCustomFields';
import { AddLeadsStatusIndex1796030000000 } from './1796030000000-AddLeadsStatusIndex';
import { AddOpportunitiesStageIndex1796040000000 } from './1796040000000-AddOpportunitiesStageIndex';
import { SearchGermanSpellings1796050000000 } from './1796050000000-SearchGermanSpellings';
import { AddEngagementSignalType1796070000000 } from './1796070000000-AddEngagementSignalType';
import { AddEnrollmentsWorkflowIndex1796080000000 } from './1796080000000-AddEnrollmentsWorkflowIndex';
import { AddSmsStatusChecks1796090000000 } from './1796090000000-AddSmsStatusChecks';
import { AddLeadSearchText1796100000000 } from './1796100000000-AddLeadSearchText';
import { AddFileRemovals1796110000000 } from './1796110000000-AddFileRemovals';
import { AddLeadsUpdatedIndex1796120000000 } from './1796120000000-AddLeadsUpdatedIndex';
import { AddLeadChangeFeed1796130000000 } from './1796130000000-AddLeadChangeFeed';
import { AddLeadDeletionRetention1796140000000 } from './1796140000000-AddLeadDeletionRetention';
import { AddOpportunityChangeFeed1796150000000 } from './1796150000000-AddOpportunityChangeFeed';

/** Every migration, in order. Listed explicitly so bundlers and jest need no glob loading. */
export const migrations: (new () => MigrationInterface)[] = [
  Initial1795306585251,
  AddAccessControl1795308613341,
  AddWebhooks1795308626680,
  AddDefinitions1795308695208,
  AddRecords1795309879039,
  AddOpportunities1795309954564,
  AddTrainingAddonsAgents1795310032435,
  AddCampaigns1795310471324,
  AddForms1795310504912,
  AddFiles1795310569723,
  AddLeadsUncheckedIndex1795320000000,
  AddFileStatus1795330000000,
  AddLeadDedupeKeys1795340000000,
  ScopeIdempotencyKeysPerCaller1795350000000,
  AddLoginFailures1795350000001,
  AddEmailFormats1795352000000,
  AddEmailSuppressions1795352100000,
  AddLeadIdentities1795356000000,
  AddEngagementSettings1795357000000,
  AddOperations1795354000000,
  AddSendersAndDkimKeys1795358000000,
  AddLeadImports1795360000000,
  AddEngagementSignalWindow1795361000000,
  DropRedundantScopeIndexes1795725190309,
  AddImportChunkLeadRange1795740000000,
  AddPendingEnrollments1795820911457,
  SearchVectorAsGeneratedColumn1795880000000,
  DropUnreadLeadPhoneAndEventScopeIndexes1795900000000,
  AddTaskOpportunityIndex1795960000000,
  AddAgentExecutionRejection1795970000000,
  AddDkimKeyVerification1795980000000,
  DkimKeysPerSelector1795985000000,
  RenormalizeInternationalPhones1795990000000,
  AddSmsStatusCallbacks1796000000000,
  AddEventsCreatedIndex1796010000000,
  SearchAccentsPhonesAndCustomFields1796020000000,
  AddLeadsStatusIndex1796030000000,
  AddOpportunitiesStageIndex1796040000000,
  SearchGermanSpellings1796050000000,
  AddEngagementSignalType1796070000000,
  AddEnrollmentsWorkflowIndex1796080000000,
  AddSmsStatusChecks1796090000000,
  AddLeadSearchText1796100000000,
  AddFileRemovals1796110000000,
  AddLeadsUpdatedIndex1796120000000,
  AddLeadChangeFeed1796130000000,
  AddLeadDeletionRetention1796140000000,
  AddOpportunityChangeFeed1796150000000,
];
