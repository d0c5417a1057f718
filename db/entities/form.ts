import { Column, Entity, Index } from 'typeorm';
import { TenantOwned } from './tenant-owned';

export const FORM_FIELD_TYPES = ['text', 'email', 'tel', 'textarea', 'select', 'checkbox'] as const;
export const LEAD_FIELDS = ['email', 'firstName', 'lastName', 'phone'] as const;

export interface FormField {
  name: string;
  label: string;
  type: (typeof FORM_FIELD_TYPES)[number];
  required: boolean;
  options?: string[];
  /** The lead field this input fills; other inputs land in the lead's customFields. */
  mapsTo?: (typeof LEAD_FIELDS)[number];
}

/** A form whose public submissions upsert a lead by email. Landing pages get one each, lazily. */
@Entity({ name: 'forms' })
@Index('uq_forms_landing_page', ['landingPageId'], { unique: true, where: '"landing_page_id" IS NOT NULL' })
export class Form extends TenantOwned {
  @Column({ type: 'varchar', length: 200 })
  name: string;

  @Column({ type: 'varchar', length: 1000, default: '' })
  description: string;

  @Column({ type: 'jsonb' })
  fields: FormField[];

  @Column({ type: 'varchar', length: 10, default: 'active' })
  status: 'active' | 'archived';

  @Column({ name: 'success_message', type: 'varchar', length: 500, default: 'Thank you! We will be in touch.' })
  successMessage: string;

  @Column({ name: 'redirect_url', type: 'varchar', length: 2000, nullable: true })
  redirectUrl: string | null;

  @Column({ name: 'landing_page_id', type: 'bigint', nullable: true })
  landingPageId: string | null;

  @Column({ name: 'created_by', type: 'bigint', nullable: true })
  createdBy: string | null;

  @Column({ name: 'submission_count', type: 'integer', default: 0 })
  submissionCount: number;
}

@Entity({ name: 'form_submissions' })
@Index('ix_form_submissions_form', ['formId', 'createdAt'])
export class FormSubmission extends TenantOwned {
  @Column({ name: 'form_id', type: 'bigint' })
  formId: string;

  @Column({ name: 'lead_id', type: 'bigint', nullable: true })
  leadId: string | null;

  @Column({ type: 'jsonb' })
  fields: Record<string, unknown>;

  @Column({ type: 'varchar', length: 64, nullable: true })
  ip: string | null;
}
