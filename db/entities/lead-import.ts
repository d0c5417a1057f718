import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const IMPORT_FORMATS = ['csv', 'ndjson'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];
export const IMPORT_POLICIES = ['skip', 'update', 'create'] as const;
export type ImportPolicy = (typeof IMPORT_POLICIES)[number];
export const IMPORT_STATUSES = ['queued', 'running', 'completed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** Lead field -> CSV column or NDJSON key; custom fields by their own key. */
export interface ImportMapping {
  email: string;
  firstName: string;
  lastName: string;
  phone?: string;
  status?: string;
  score?: string;
  assignedTo?: string;
  referralCode?: string;
  customFields?: Record<string, string>;
}

/**
 * A bulk import of an uploaded file into leads (`lead-import/<id>` workflow). `cursor` is the byte
 * offset of the next unread record and `lines` the physical lines before it: each chunk's
 * transaction advances both with its counters, so a retried chunk sees they moved and applies nothing.
 */
@Entity({ name: 'lead_imports' })
// The limit on concurrent imports counts a scope's unfinished ones.
@Index('ix_lead_imports_scope_status', ['tenantId', 'environment', 'status'])
export class LeadImport extends TenantOwned {
  @Column({ name: 'file_id', type: 'bigint' })
  fileId: string;

  /** The file's size when the import was created: progress and ETA are measured in bytes read. */
  @Column({ name: 'file_size', type: 'integer' })
  fileSize: number;

  @Column({ type: 'varchar', length: 10 })
  format: ImportFormat;

  @Column({ type: 'jsonb' })
  mapping: ImportMapping;

  /** A CSV file's header row, read when the import was created; null for NDJSON. */
  @Column({ type: 'jsonb', nullable: true })
  header: string[] | null;

  @Column({ name: 'on_existing', type: 'varchar', length: 10 })
  onExisting: ImportPolicy;

  @Column({ name: 'emit_lead_events', type: 'boolean', default: false })
  emitLeadEvents: boolean;

  @Column({ name: 'trigger_campaigns', type: 'boolean', default: false })
  triggerCampaigns: boolean;

  @Column({ type: 'varchar', length: 12, default: 'queued' })
  status: ImportStatus;

  /** Rows past this many are failed (10 x the plan's monthly calls, at least 10,000). */
  @Column({ name: 'row_cap', type: 'integer' })
  rowCap: number;

  @Column({ type: 'bigint', default: 0 })
  cursor: string;

  @Column({ type: 'integer', default: 0 })
  lines: number;

  @Column({ name: 'rows_read', type: 'integer', default: 0 })
  rowsRead: number;

  @Column({ type: 'integer', default: 0 })
  created: number;

  @Column({ type: 'integer', default: 0 })
  updated: number;

  @Column({ type: 'integer', default: 0 })
  skipped: number;

  @Column({ type: 'integer', default: 0 })
  failed: number;

  /** Why the whole import failed (an unreadable file); row failures are in lead_import_failures. */
  @Column({ type: 'text', nullable: true })
  error: string | null;

  /**
   * The first and last lead ID the last applied chunk created, for its search-document step: a
   * chunk retried after its commit finds itself applied and reports them again (import-chunk.ts).
   */
  @Column({ name: 'chunk_first_lead_id', type: 'bigint', nullable: true })
  chunkFirstLeadId: string | null;

  @Column({ name: 'chunk_last_lead_id', type: 'bigint', nullable: true })
  chunkLastLeadId: string | null;

  @Column({ name: 'workflow_id', type: 'varchar', length: 200 })
  workflowId: string;

  @Column({ name: 'created_by', type: 'bigint', nullable: true })
  createdBy: string | null;

  @Column({ name: 'started_at', type: 'timestamptz', nullable: true })
  startedAt: Date | null;

  @Column({ name: 'completed_at', type: 'timestamptz', nullable: true })
  completedAt: Date | null;
}

/** A row of an import's file that did not become a lead: its line, why, and what it held. */
@Entity({ name: 'lead_import_failures' })
@Index('ix_lead_import_failures_import_line', ['tenantId', 'environment', 'importId', 'line'])
export class LeadImportFailure extends TenantOwned {
  @Column({ name: 'import_id', type: 'bigint' })
  importId: string;

  /** 1-based physical line of the file where the row starts (the CSV header is line 1). */
  @Column({ type: 'integer' })
  line: number;

  @Column({ type: 'text' })
  reason: string;

  @Column({ type: 'jsonb' })
  raw: Record<string, unknown>;
}
