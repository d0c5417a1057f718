import type { DataSource } from 'typeorm';
import { ScopedData } from '../db/scoped-data';
import type { TenantScope } from '../db/scoped-repository';
import type { WorkflowStarter } from '../lib/temporal/workflow-starter';
import type { PendingAudit } from './pending-audit';

/** What a domain operation needs: the database, the tenant scope, the actor and Temporal. */
export interface DomainContext {
  db: DataSource;
  scope: TenantScope;
  /** The scope's rows outside a transaction (reads, single statements); writes that belong together use unitOfWork. */
  data: ScopedData;
  actorUserId: string;
  workflows: WorkflowStarter;
  webhooks?: WebhookDomainOptions;
  /**
   * Called before waiting on something other than the database (a workflow's result, the signals
   * an engagement event sends once it is stored): the API gives the tenant's in-flight slot back,
   * since the wait holds no connection.
   */
  beforeLongWait?: () => void;
  /**
   * Called before a write waits for a group commit (scope-group-commit.ts): the API gives the slot
   * back while no other tenant is active (the wait holds no connection, and the tenant's next
   * requests can join the group), and keeps it while one is, so the shrunk share still bounds
   * the tenant's work.
   */
  beforeGroupWait?: () => void;
  /**
   * Called before a read by ID joins a group of reads (db/grouped-reads.ts), in requests that only
   * read: the same slot given back as for beforeGroupWait. A write's request keeps its slot: its
   * read comes before the work the share is there to bound.
   */
  beforeReadGroupWait?: () => void;
  /** A mutating request's audit entry, until a change in its scope writes it (pending-audit.ts); none outside requests. */
  audit?: PendingAudit;
}

/** A context for `fields`, its scoped data on the database's own connection pool. */
export const createDomainContext = (fields: Omit<DomainContext, 'data'>): DomainContext => ({
  ...fields,
  data: new ScopedData(fields.db.manager, fields.scope, fields.beforeReadGroupWait),
});

export interface WebhookDomainOptions {
  allowPrivateTargets: boolean;
  /** Endpoints per tenant and environment; default WEBHOOK_ENDPOINTS_MAX. */
  maxEndpoints?: number;
}
