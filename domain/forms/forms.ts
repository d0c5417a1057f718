import { Form } from '../../db/entities';
import { scoped } from '../../db/scoped-repository';
import { notFound } from '../../lib/errors';
import type { FormCreate, FormUpdate } from '../../api/schemas/form';
import type { DomainContext } from '../context';
import { countedPage } from '../../db/counted-page';

export async function createForm(ctx: DomainContext, input: FormCreate): Promise<Form> {
  return scoped(ctx.db.manager, Form, ctx.scope).insert({ ...input, redirectUrl: input.redirectUrl ?? null, createdBy: ctx.actorUserId });
}

export async function getForm(ctx: DomainContext, id: string): Promise<Form> {
  const form = await scoped(ctx.db.manager, Form, ctx.scope).findById(id);
  if (!form) throw notFound('Form');
  return form;
}

export async function listForms(ctx: DomainContext, q: { page: number; limit: number; status?: 'active' | 'archived' }) {
  const qb = scoped(ctx.db.manager, Form, ctx.scope).query('f');
  if (q.status) qb.andWhere('f.status = :status', { status: q.status });
  const [rows, total] = await countedPage(qb.orderBy('f.created_at', 'DESC').addOrderBy('f.id', 'DESC'), q.page, q.limit);
  return { rows, total };
}

export async function updateForm(ctx: DomainContext, id: string, patch: FormUpdate): Promise<Form> {
  const form = await getForm(ctx, id);
  Object.assign(form, patch);
  return scoped(ctx.db.manager, Form, ctx.scope).save(form);
}

export async function deleteForm(ctx: DomainContext, id: string): Promise<Form> {
  const form = await getForm(ctx, id);
  await scoped(ctx.db.manager, Form, ctx.scope).deleteById(id);
  return form;
}
