import { z } from 'zod';
import {
  createEmailTemplate,
  deleteEmailTemplate,
  getEmailTemplate,
  listEmailTemplates,
  updateEmailTemplate,
} from '../../domain/communications/email-templates';
import { defineListRoute, defineRoute } from '../http/route';
import { PaginationQuery } from '../../contracts/common';
import { EmailTemplateCreate, EmailTemplateIdParams, EmailTemplateRecord, EmailTemplateUpdate } from '../../contracts/communication';
import { serializeEmailTemplate as serialize } from '../serializers/message';

const tag = 'Communications';
const base = '/v1/communications/templates';

/** Email templates: subject and body with {{variable}} placeholders (HTML-escaped when rendered). */
export function emailTemplateRoutes() {
  const common = { tag, auth: 'tenant' as const };
  return [
    defineRoute({
      ...common,
      method: 'post',
      path: base,
      summary: 'Create an email template',
      scope: 'communications:write',
      body: EmailTemplateCreate,
      response: EmailTemplateRecord,
      handler: async ({ body, ctx }) => ({
        data: serialize(await createEmailTemplate(ctx, body)),
        message: 'Template created',
      }),
    }),
    defineListRoute({
      ...common,
      method: 'get',
      path: base,
      summary: 'List email templates',
      scope: 'communications:read',
      query: PaginationQuery,
      response: z.array(EmailTemplateRecord),
      message: 'Templates retrieved',
      serialize: serialize,
      handler: ({ query, ctx }) => listEmailTemplates(ctx, query),
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: `${base}/:id`,
      summary: 'Get an email template',
      scope: 'communications:read',
      params: EmailTemplateIdParams,
      response: EmailTemplateRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await getEmailTemplate(ctx, params.id)),
        message: 'Template retrieved',
      }),
    }),
    defineRoute({
      ...common,
      method: 'patch',
      path: `${base}/:id`,
      summary: 'Update an email template',
      scope: 'communications:write',
      params: EmailTemplateIdParams,
      body: EmailTemplateUpdate,
      response: EmailTemplateRecord,
      handler: async ({ params, body, ctx }) => ({
        data: serialize(await updateEmailTemplate(ctx, params.id, body)),
        message: 'Template updated',
      }),
    }),
    defineRoute({
      ...common,
      method: 'delete',
      path: `${base}/:id`,
      summary: 'Delete an email template',
      scope: 'communications:write',
      params: EmailTemplateIdParams,
      response: EmailTemplateRecord,
      handler: async ({ params, ctx }) => ({
        data: serialize(await deleteEmailTemplate(ctx, params.id)),
        message: 'Template deleted',
      }),
    }),
  ];
}
