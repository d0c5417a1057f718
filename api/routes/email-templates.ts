import { z } from 'zod';
import {
  createEmailTemplate,
  deleteEmailTemplate,
  getEmailTemplate,
  listEmailTemplates,
  updateEmailTemplate,
} from '../../domain/communications/email-templates';
import { domainContext, type AppDeps } from '../http/domain-context';
import { paginate } from '../http/envelope';
import { defineRoute } from '../http/route';
import { PaginationQuery } from '../schemas/common';
import { EmailTemplateCreate, EmailTemplateIdParams, EmailTemplateRecord, EmailTemplateUpdate } from '../schemas/communication';
import { serializeEmailTemplate as serialize } from '../serializers/message';

const tag = 'Communications';
const base = '/v1/communications/templates';

/** Email templates: subject and body with {{variable}} placeholders (HTML-escaped when rendered). */
export function emailTemplateRoutes(deps: AppDeps) {
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
      handler: async ({ body, auth }) => ({
        data: serialize(await createEmailTemplate(domainContext(deps, auth), body)),
        message: 'Template created',
      }),
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: base,
      summary: 'List email templates',
      scope: 'communications:read',
      query: PaginationQuery,
      response: z.array(EmailTemplateRecord),
      list: true,
      handler: async ({ query, auth }) => {
        const { rows, total } = await listEmailTemplates(domainContext(deps, auth), query);
        return { data: rows.map(serialize), pagination: paginate(query.page, query.limit, total), message: 'Templates retrieved' };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: `${base}/:id`,
      summary: 'Get an email template',
      scope: 'communications:read',
      params: EmailTemplateIdParams,
      response: EmailTemplateRecord,
      handler: async ({ params, auth }) => ({
        data: serialize(await getEmailTemplate(domainContext(deps, auth), params.id)),
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
      handler: async ({ params, body, auth }) => ({
        data: serialize(await updateEmailTemplate(domainContext(deps, auth), params.id, body)),
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
      handler: async ({ params, auth }) => ({
        data: serialize(await deleteEmailTemplate(domainContext(deps, auth), params.id)),
        message: 'Template deleted',
      }),
    }),
  ];
}
