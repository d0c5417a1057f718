import { Form, FormSubmission } from '../../db/entities';
import { notFound } from '../../lib/errors';
import type { FormCreate, FormUpdate } from '../../contracts/form';
import type { DomainContext } from '../context';

export async function createForm(ctx: DomainContext, input: FormCreate): Promise<Form> {
  return ctx.data.repo(Form).insert({ ...input, redirectUrl: input.redirectUrl ?? null, createdBy: ctx.actorUserId });
}

export async function getForm(ctx: DomainContext, id: string): Promise<Form> {
  const form = await ctx.data.repo(Form).findById(id);
  if (!form) throw notFound('Form');
  return form;
}

export async function listForms(ctx: DomainContext, q: { page: number; limit: number; status?: ('active' | 'archived')[] }) {
  const qb = ctx.data.repo(Form).select('f');
  if (q.status) qb.andWhere('f.status IN (:...status)', { status: q.status });
  const [rows, total] = await qb.orderBy('f.created_at', 'DESC').addOrderBy('f.id', 'DESC').page(q.page, q.limit);
  return { rows, total };
}

export async function updateForm(ctx: DomainContext, id: string, patch: FormUpdate): Promise<Form> {
  const form = await getForm(ctx, id);
  Object.assign(form, patch);
  return ctx.data.repo(Form).save(form);
}

export async function deleteForm(ctx: DomainContext, id: string): Promise<Form> {
  const form = await getForm(ctx, id);
  await ctx.data.repo(Form).deleteById(id);
  return form;
}

/** One page of a form's submissions, newest first; a form of another scope is not found. */
export async function listSubmissions(ctx: DomainContext, formId: string, q: { page: number; limit: number }) {
  await getForm(ctx, formId);
  const [rows, total] = await ctx.data
    .repo(FormSubmission)
    .select('s')
    .andWhere('s.form_id = :formId', { formId })
    .orderBy('s.created_at', 'DESC')
    .addOrderBy('s.id', 'DESC')
    .page(q.page, q.limit);
  return { rows, total };
}
