import type { DataSource } from 'typeorm';
import { Form, FormSubmission, Lead, User } from '../../db/entities';
import type { FormField } from '../../db/entities/form';
import { scoped, type TenantScope } from '../../db/scoped-repository';
import { validationFailed, type FieldError } from '../../lib/errors';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import type { DomainContext, WebhookDomainOptions } from '../context';
import { enrollByTrigger } from '../campaigns/auto-enroll';
import { recordEngagement } from '../engagement/record-engagement';
import { createLead, updateLead } from '../leads';
import { encodeId } from '../../lib/ids';
import { normalizeEmail } from '../normalize';
import { emitEvent } from '../webhooks/emit-event';
import { relayAfterCommit } from '../webhooks/relay';
import { eventPayloads } from '../webhooks/webhook-events';

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+?[0-9 ()./-]{5,30}$/;

function readValues(form: Form, raw: Record<string, unknown>): { values: Record<string, string | boolean>; errors: FieldError[] } {
  const values: Record<string, string | boolean> = {};
  const errors: FieldError[] = [];
  for (const f of form.fields) {
    const v = raw[f.name];
    if (f.type === 'checkbox') {
      values[f.name] = v === true || v === 'on' || v === 'true';
      if (f.required && !values[f.name]) errors.push({ field: f.name, message: 'Must be checked' });
      continue;
    }
    const text = typeof v === 'string' || typeof v === 'number' ? String(v).trim() : '';
    if (!text) {
      if (f.required) errors.push({ field: f.name, message: 'Required' });
      continue;
    }
    const problem = checkField(f, text);
    if (problem) errors.push({ field: f.name, message: problem });
    else values[f.name] = text;
  }
  return { values, errors };
}

function checkField(f: FormField, text: string): string | null {
  if (text.length > 2000) return 'At most 2000 characters';
  if (f.type === 'email' && !EMAIL.test(text)) return 'Must be a valid email address';
  if (f.type === 'tel' && !PHONE.test(text)) return 'Must be a phone number with country code';
  if (f.type === 'select' && !f.options?.includes(text)) return `Must be one of ${f.options?.join(', ')}`;
  return null;
}

async function actorFor(db: DataSource, form: Form): Promise<string> {
  if (form.createdBy) return form.createdBy;
  const admin = await db
    .getRepository(User)
    .findOne({ where: { tenantId: form.tenantId, roleId: 'admin', status: 'active' }, order: { id: 'ASC' } });
  if (!admin) throw new Error(`tenant ${form.tenantId} has no active admin to own form leads`);
  return admin.id;
}

export interface SubmitDeps {
  db: DataSource;
  workflows: WorkflowStarter;
  webhooks?: WebhookDomainOptions;
}

/**
 * A public submission: validates against the form, upserts the lead by email (mapped inputs fill
 * lead fields, the rest customFields), records the submission and emits form.submitted. The lead
 * upsert commits first (it starts duplicate detection like any new lead); the submission and its
 * event commit together.
 */
export async function submitForm(deps: SubmitDeps, form: Form, raw: Record<string, unknown>, ip: string | null) {
  const { values, errors } = readValues(form, raw);
  if (errors.length) throw validationFailed(errors);
  const scope: TenantScope = { tenantId: form.tenantId, environment: form.environment };
  const ctx: DomainContext = {
    db: deps.db,
    workflows: deps.workflows,
    webhooks: deps.webhooks,
    scope,
    actorUserId: await actorFor(deps.db, form),
  };
  const mapped: Record<string, string> = {};
  const custom: Record<string, string | boolean> = {};
  for (const f of form.fields) {
    if (!(f.name in values)) continue;
    if (f.mapsTo) mapped[f.mapsTo] = String(values[f.name]);
    else custom[f.name] = values[f.name];
  }
  const email = mapped.email;
  const existing = await scoped(deps.db.manager, Lead, scope).findOne({ emailNormalized: normalizeEmail(email) });
  const lead = existing
    ? await updateLead(ctx, existing.id, { ...mapped, customFields: custom })
    : await createLead(ctx, {
        email,
        firstName: mapped.firstName ?? email.split('@')[0],
        lastName: mapped.lastName ?? '',
        phone: mapped.phone,
        source: 'web',
        customFields: custom,
      });
  const { submission, event } = await deps.db.transaction(async (m) => {
    const submission = await scoped(m, FormSubmission, scope).insert({ formId: form.id, leadId: lead.id, fields: values, ip });
    await m.getRepository(Form).increment({ id: form.id }, 'submissionCount', 1);
    const event = await emitEvent(
      m,
      scope,
      'form.submitted',
      eventPayloads['form.submitted']({ id: form.id, leadId: lead.id, fields: values }),
    );
    return { submission, event };
  });
  await relayAfterCommit(deps.db, deps.workflows, [event], deps.webhooks?.relayHooks);
  // The form_submission engagement event feeds campaign conditions; form_submitted campaigns enroll.
  await recordEngagement(deps.db, deps.workflows.client, scope, {
    type: 'form_submission',
    leadId: lead.id,
    message: null,
    workflowExecutionId: null,
    occurredAt: new Date(),
    machine: false,
    details: { formId: encodeId('form', form.id) },
  });
  await enrollByTrigger(ctx, lead, 'form_submitted');
  return { submission, lead };
}
