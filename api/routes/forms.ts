import { z } from 'zod';
import { createForm, deleteForm, getForm, listForms, listSubmissions, updateForm } from '../../domain/forms/forms';
import { submitForm } from '../../domain/forms/submit';
import { escapeHtml } from '../../domain/landing-pages/escape-html';
import { encodeId } from '../../lib/ids';
import type { AppDeps } from '../http/domain-context';
import { defineListRoute, defineRoute } from '../http/route';
import { PaginationQuery } from '../../contracts/common';
import {
  Form,
  FormCreate,
  FormIdParams,
  FormListQuery,
  FormSubmission as FormSubmissionSchema,
  FormUpdate,
  PublicFormParams,
  SubmissionReceipt,
} from '../../contracts/form';
import { serializeForm, serializeSubmission } from '../serializers/form';

const thankYouPage = (message: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Thank you</title></head><body><p>${escapeHtml(message)}</p></body></html>`;

export function formRoutes(deps: AppDeps) {
  const base = { tag: 'Forms', auth: 'tenant' as const };
  return [
    defineRoute({
      ...base,
      method: 'post',
      path: '/v1/forms',
      summary: 'Create a form (its public submitPath upserts leads by email)',
      scope: 'forms:write',
      body: FormCreate,
      response: Form,
      handler: async ({ body, ctx }) => ({
        data: serializeForm(await createForm(ctx, body)),
        message: 'Form created',
      }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/forms',
      summary: 'List forms',
      scope: 'forms:read',
      query: FormListQuery,
      response: z.array(Form),
      message: 'Forms retrieved',
      serialize: serializeForm,
      handler: ({ query, ctx }) => listForms(ctx, query),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/forms/:id',
      summary: 'Get a form',
      scope: 'forms:read',
      params: FormIdParams,
      response: Form,
      handler: async ({ params, ctx }) => ({
        data: serializeForm(await getForm(ctx, params.id)),
        message: 'Form retrieved',
      }),
    }),
    defineRoute({
      ...base,
      method: 'patch',
      path: '/v1/forms/:id',
      summary: 'Update a form (status archived stops public submissions)',
      scope: 'forms:write',
      params: FormIdParams,
      body: FormUpdate,
      response: Form,
      handler: async ({ params, body, ctx }) => ({
        data: serializeForm(await updateForm(ctx, params.id, body)),
        message: 'Form updated',
      }),
    }),
    defineRoute({
      ...base,
      method: 'delete',
      path: '/v1/forms/:id',
      summary: 'Delete a form',
      scope: 'forms:write',
      params: FormIdParams,
      response: Form,
      handler: async ({ params, ctx }) => ({
        data: serializeForm(await deleteForm(ctx, params.id)),
        message: 'Form deleted',
      }),
    }),
    defineListRoute({
      ...base,
      method: 'get',
      path: '/v1/forms/:id/submissions',
      summary: "List a form's submissions (newest first)",
      scope: 'forms:read',
      params: FormIdParams,
      query: PaginationQuery,
      response: z.array(FormSubmissionSchema),
      message: 'Submissions retrieved',
      serialize: serializeSubmission,
      handler: ({ params, query, ctx }) => listSubmissions(ctx, params.id, query),
    }),
    defineRoute({
      method: 'post',
      path: '/v1/public/forms/:id/submissions',
      summary: 'Submit a form (public, no auth; JSON or an HTML form post). The id is a form ID or a landing page ID.',
      tag: 'Forms',
      auth: 'public',
      params: PublicFormParams,
      // Every form has a required email field, so a submission always has a body.
      body: z.record(z.string(), z.unknown()).meta({
        description:
          "The form's own fields by name, as its definition lists them: a required one left out, or one given more than once, is a 422 naming it",
        minProperties: 1,
      }),
      response: SubmissionReceipt,
      // Past PUBLIC_FORMS_LIMIT_PER_MINUTE submissions from one address.
      errors: [429],
      handler: async ({ params, body, req }) => {
        const { form, submission, lead } = await submitForm(deps, params.id, body, req.ip ?? null);
        const fromBrowser = Boolean(req.is('application/x-www-form-urlencoded'));
        return {
          data: {
            submissionId: encodeId('formSubmission', submission.id),
            leadId: encodeId('lead', lead.id),
            message: form.successMessage,
          },
          message: 'Submission received',
          ...(fromBrowser
            ? { browser: form.redirectUrl ? { redirectTo: form.redirectUrl } : { html: thankYouPage(form.successMessage) } }
            : {}),
        };
      },
    }),
  ];
}
