import { Column, Entity } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const OPERATION_TYPES = ['campaign.pause', 'campaign.resume', 'campaign.complete', 'webhook.recover'] as const;
export type OperationType = (typeof OPERATION_TYPES)[number];
export const OPERATION_STATUSES = ['running', 'succeeded', 'failed'] as const;
export type OperationStatus = (typeof OPERATION_STATUSES)[number];

/**
 * A fan-out that runs after the request answered (a campaign's pause, resume or completion
 * signalling every enrollment; a webhook's recover re-sending failed deliveries): what
 * `GET /v1/operations/:id` shows while its workflow works.
 */
@Entity({ name: 'operations' })
export class Operation extends TenantOwned {
  @Column({ type: 'varchar', length: 40 })
  type: OperationType;

  /** The campaign (campaign.*) or webhook endpoint (webhook.*) the operation acts on. */
  @Column({ name: 'resource_id', type: 'bigint' })
  resourceId: string;

  @Column({ name: 'workflow_id', type: 'varchar', length: 200 })
  workflowId: string;

  @Column({ type: 'varchar', length: 12, default: 'running' })
  status: OperationStatus;

  /** Items to process (enrollments, deliveries), counted when the operation started; `processed` grows as pages are done. */
  @Column({ type: 'integer', default: 0 })
  total: number;

  @Column({ type: 'integer', default: 0 })
  processed: number;

  @Column({ name: 'finished_at', type: 'timestamptz', nullable: true })
  finishedAt: Date | null;
}
