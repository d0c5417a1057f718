import type { DataSource } from 'typeorm';
import { z } from 'zod';
import { emailField, phoneField } from '../../contracts/common';
import { LeadCreate } from '../../contracts/lead';
import { Form, FormSubmission, Lead, User } from '../../db/entities';
import type { FormField } from '../../db/entities/form';
import { ScopedData } from '../../db/scoped-data';
import type { TenantScope } from '../../db/scoped-repository';
import { GIVEN_MORE_THAN_ONCE, notFound, validationFailed, type FieldError } from '../../lib/errors';
import type { WorkflowStarter } from '../../lib/temporal/workflow-starter';
import { createDomainContext, type DomainContext, type WebhookDomainOptions } from '../context';
import { recordPendingEnrollment, startPendingEnrollment } from '../campaigns/auto-enroll';
import { recordEngagement } from '../engagement/record-engagement';
import { createLead, updateLead } from '../leads/leads';
import { encodeId } from '../../lib/ids';
import { normalizeEmail } from '../normalize';
import { unitOfWork } from '../unit-of-work';
import { resolvePublicForm } from './public-form';

/**
 * An input mapped to a lead field is checked by that field's schema in POST /v1/leads (lengths
 * included), so a submission never reaches a column it does not fit; other email and phone inputs
 * by the same email and phone rules; anything else is a custom field value (as long as a lead's).
 */
function schemaFor(f: FormField): z.ZodType {
  if (f.mapsTo) return LeadCreate.shape[f.mapsTo];
  if (f.type === 'email') return emailField;
  if (f.type === 'tel') return phoneField;
  return z.string().max(2000, 'At most 2000 characters');
}

function readValues(form: Form, raw: Record<string, unknown>): { values: Record<string, string | boolean>; errors: FieldError[] } {
  const values: Record<string, string | boolean> = {};
  const errors: FieldError[] = [];
  for (const f of form.fields) {
    const v = raw[f.name];
    // An HTML form post that names an input twice arrives as a list (so does a JSON list); every
    // field holds one value, so that is said, rather than the list read as missing ("Required").
    if (Array.isArray(v) && v.length > 1) {
      errors.push({ field: f.name, message: GIVEN_MORE_THAN_ONCE });
      continue;
    }
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
  const parsed = schemaFor(f).safeParse(text);
  if (!parsed.success) return parsed.error.issues[0].message;
  if (f.type === 'select' && !f.options?.includes(text)) return `Must be one of ${f.options?.join(', ')}`;
  return null;
}

async function actorFor(data: ScopedData, form: Form): Promise<string> {
  if (form.createdBy) return form.createdBy;
  const [admin] = await data.repo(User).find({ where: { roleId: 'admin', status: 'active' }, order: { id: 'ASC' }, take: 1 });
  if (!admin) throw new Error(`tenant ${form.tenantId} has no active admin to own form leads`);
  return admin.id;
}

/**
 * An anonymous submission for a lead that exists only fills what the lead lacks: anyone can post
 * any address, so the names, phone and custom fields the tenant has stay. Every submitted value is
 * kept in the submission, linked to the lead.
 */
async function fillEmptyFields(ctx: DomainContext, lead: Lead, mapped: Record<string, string>, custom: Record<string, string | boolean>) {
  const isEmpty = (v: unknown) => v === null || v === undefined || v === '';
  const patch: Record<string, string> = {};
  for (const key of ['firstName', 'lastName', 'phone'] as const) if (mapped[key] && isEmpty(lead[key])) patch[key] = mapped[key];
  const customFields = Object.fromEntries(Object.entries(custom).filter(([k]) => isEmpty(lead.customFields[k])));
  if (!Object.keys(patch).length && !Object.keys(customFields).length) return lead;
  return updateLead(ctx, lead.id, { ...patch, ...(Object.keys(customFields).length ? { customFields } : {}) });
}

export interface SubmitDeps {
  db: DataSource;
  workflows: WorkflowStarter;
  webhooks?: WebhookDomainOptions;
}

/**
 * A public submission to the form (or landing page) `publicId`; unknown and archived forms are not
 * found. Validates against the form, upserts the lead by email (mapped inputs fill
 * lead fields, the rest customFields; an existing lead's fields are only filled where empty), records the submission and emits form.submitted. The lead
 * upsert commits first (it starts duplicate detection like any new lead); the submission and its
 * event commit together.
 */
export async function submitForm(deps: SubmitDeps, publicId: string, raw: Record<string, unknown>, ip: string | null) {
  const form = await resolvePublicForm(deps.db, publicId);
  if (!form) throw notFound('Form');
  const { values, errors } = readValues(form, raw);
  if (errors.length) throw validationFailed(errors);
  const scope: TenantScope = { tenantId: form.tenantId, environment: form.environment };
  const ctx = createDomainContext({
    db: deps.db,
    workflows: deps.workflows,
    webhooks: deps.webhooks,
    scope,
    actorUserId: await actorFor(new ScopedData(deps.db.manager, scope), form),
  });
  const mapped: Record<string, string> = {};
  const custom: Record<string, string | boolean> = {};
  for (const f of form.fields) {
    if (!(f.name in values)) continue;
    if (f.mapsTo) mapped[f.mapsTo] = String(values[f.name]);
    else custom[f.name] = values[f.name];
  }
  const email = mapped.email;
  const existing = await ctx.data.repo(Lead).findOne({ emailNormalized: normalizeEmail(email) });
  const lead = existing
    ? await fillEmptyFields(ctx, existing, mapped, custom)
    : await createLead(ctx, {
        email,
        firstName: mapped.firstName ?? email.split('@')[0],
        lastName: mapped.lastName ?? '',
        phone: mapped.phone,
        source: 'web',
        customFields: custom,
      });
  const { submission, pending } = await unitOfWork(ctx, async (tx) => {
    const submission = await tx.repo(FormSubmission).insert({ formId: form.id, leadId: lead.id, fields: values, ip });
    await tx.repo(Form).increment({ id: form.id }, 'submissionCount');
    await tx.emit('form.submitted', { id: form.id, leadId: lead.id, fields: values });
    return { submission, pending: await recordPendingEnrollment(tx, 'form_submitted', [lead.id], ctx.actorUserId) };
  });
  // The form_submission engagement event feeds campaign conditions; form_submitted campaigns enroll.
  await recordEngagement(deps, scope, {
    type: 'form_submission',
    leadId: lead.id,
    message: null,
    workflowExecutionId: null,
    occurredAt: new Date(),
    machine: false,
    details: { formId: encodeId('form', form.id) },
  });
  startPendingEnrollment(ctx, pending);
  return { form, submission, lead };
}
