import { z } from 'zod';
import { FormSubmission } from '../../db/entities';
import { createForm, deleteForm, getForm, listForms, updateForm } from '../../domain/forms/forms';
import { resolvePublicForm } from '../../domain/forms/public-form';
import { submitForm } from '../../domain/forms/submit';
import { escapeHtml } from '../../domain/landing-pages/escape-html';
import { notFound } from '../../lib/errors';
import { encodeId } from '../../lib/ids';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { PaginationQuery } from '../schemas/common';
import {
  Form,
  FormCreate,
  FormIdParams,
  FormListQuery,
  FormSubmission as FormSubmissionSchema,
  FormUpdate,
  PublicFormParams,
  SubmissionReceipt,
} from '../schemas/form';
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
      handler: async ({ body, auth }) => ({
        data: serializeForm(await createForm(domainContext(deps, auth), body)),
        message: 'Form created',
      }),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/forms',
      summary: 'List forms',
      scope: 'forms:read',
      query: FormListQuery,
      response: z.array(Form),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listForms(domainContext(deps, auth), query);
        return { data: rows.map(serializeForm), pagination: paginate(query.page, query.limit, total), message: 'Forms retrieved' };
      },
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/forms/:id',
      summary: 'Get a form',
      scope: 'forms:read',
      params: FormIdParams,
      response: Form,
      handler: async ({ params, auth }) => ({
        data: serializeForm(await getForm(domainContext(deps, auth), params.id)),
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
      handler: async ({ params, body, auth }) => ({
        data: serializeForm(await updateForm(domainContext(deps, auth), params.id, body)),
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
      handler: async ({ params, auth }) => ({
        data: serializeForm(await deleteForm(domainContext(deps, auth), params.id)),
        message: 'Form deleted',
      }),
    }),
    defineRoute({
      ...base,
      method: 'get',
      path: '/v1/forms/:id/submissions',
      summary: "List a form's submissions (newest first)",
      scope: 'forms:read',
      params: FormIdParams,
      query: PaginationQuery,
      response: z.array(FormSubmissionSchema),
      list: true,
      handler: async ({ params, query, auth }) => {
        const ctx = domainContext(deps, auth);
        await getForm(ctx, params.id);
        const [rows, total] = await ctx.data
          .repo(FormSubmission)
          .select('s')
          .andWhere('s.form_id = :formId', { formId: params.id })
          .orderBy('s.created_at', 'DESC')
          .addOrderBy('s.id', 'DESC')
          .page(query.page, query.limit);
        return {
          data: rows.map(serializeSubmission),
          pagination: paginate(query.page, query.limit, total),
          message: 'Submissions retrieved',
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/public/forms/:id/submissions',
      summary: 'Submit a form (public, no auth; JSON or an HTML form post). The id is a form ID or a landing page ID.',
      tag: 'Forms',
      auth: 'public',
      params: PublicFormParams,
      body: z.record(z.string(), z.unknown()),
      response: SubmissionReceipt,
      // Past PUBLIC_FORMS_LIMIT_PER_MINUTE submissions from one address.
      errors: [429],
      handler: async ({ params, body, req }) => {
        const form = await resolvePublicForm(deps.db, params.id);
        if (!form) throw notFound('Form');
        const { submission, lead } = await submitForm(deps, form, body, req.ip ?? null);
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
