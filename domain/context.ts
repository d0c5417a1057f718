import type { DataSource } from 'typeorm';
import type { TenantScope } from '../db/scoped-repository';
import type { WorkflowStarter } from '../lib/temporal/workflow-starter';
import type { RelayHooks } from './webhooks/relay';

/** What a domain operation needs: the database, the tenant scope, the actor and Temporal. */
export interface DomainContext {
  db: DataSource;
  scope: TenantScope;
  actorUserId: string;
  workflows: WorkflowStarter;
  webhooks?: WebhookDomainOptions;
}

export interface WebhookDomainOptions {
  allowPrivateTargets: boolean;
  relayHooks?: RelayHooks;
}
