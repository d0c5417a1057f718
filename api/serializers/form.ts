import type { Form as FormEntity, FormSubmission as SubmissionEntity } from '../../db/entities';
import { encodeId } from '../../lib/ids';
import { formSubmissionPath } from '../routes/public-pages';
import type { Form, FormSubmission } from '../../contracts/form';

export function serializeForm(f: FormEntity): Form {
  const id = encodeId('form', f.id);
  return {
    id,
    name: f.name,
    description: f.description,
    fields: f.fields,
    status: f.status,
    successMessage: f.successMessage,
    redirectUrl: f.redirectUrl,
    landingPageId: f.landingPageId ? encodeId('landingPage', f.landingPageId) : null,
    submissionCount: f.submissionCount,
    submitPath: formSubmissionPath(id),
    createdAt: f.createdAt.toISOString(),
    updatedAt: f.updatedAt.toISOString(),
  };
}

export function serializeSubmission(s: SubmissionEntity): FormSubmission {
  return {
    id: encodeId('formSubmission', s.id),
    formId: encodeId('form', s.formId),
    leadId: s.leadId ? encodeId('lead', s.leadId) : null,
    fields: s.fields,
    createdAt: s.createdAt.toISOString(),
  };
}
