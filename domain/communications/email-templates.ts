import type { EmailTemplateCreate } from '../../contracts/communication';
import { EmailTemplate } from '../../db/entities';
import { notFound } from '../../lib/errors';
import type { DomainContext } from '../context';
import { inferEmailFormat } from './email-format';

const repo = (ctx: DomainContext) => ctx.data.repo(EmailTemplate);

/** The format is inferred here, once, when the author did not give it; later edits keep it unless they give one. */
export const createEmailTemplate = (ctx: DomainContext, input: EmailTemplateCreate) =>
  repo(ctx).insert({ ...input, format: input.format ?? inferEmailFormat(input.body) });

export async function listEmailTemplates(ctx: DomainContext, f: { page: number; limit: number }) {
  const [rows, total] = await repo(ctx).select('t').orderBy('t.id', 'DESC').page(f.page, f.limit);
  return { rows, total };
}

export async function getEmailTemplate(ctx: DomainContext, id: string): Promise<EmailTemplate> {
  const template = await repo(ctx).findById(id);
  if (!template) throw notFound('Email template');
  return template;
}

export async function updateEmailTemplate(ctx: DomainContext, id: string, patch: Partial<EmailTemplateCreate>): Promise<EmailTemplate> {
  const template = await getEmailTemplate(ctx, id);
  return repo(ctx).save(Object.assign(template, patch));
}

export async function deleteEmailTemplate(ctx: DomainContext, id: string): Promise<EmailTemplate> {
  const template = await getEmailTemplate(ctx, id);
  await repo(ctx).deleteById(id);
  return template;
}
