import type { EntityManager } from 'typeorm';
import { toFieldErrors } from '../api/http/zod-errors';
import {
  WorkflowDefinition as DefinitionSchema,
  type WorkflowDefinition,
  type WorkflowDefinitionUpdate,
} from '../api/schemas/workflow-definition';
import { WorkflowDefinition as DefinitionEntity, WorkflowDefinitionVersion } from '../db/entities';
import { scoped, type TenantScope } from '../db/scoped-repository';
import { notFound, validationFailed } from '../lib/errors';
import { inferEmailFormat } from './communications/email-format';
import type { DomainContext } from './context';
import { countedPage } from '../db/counted-page';

/** Email nodes with a body get their format when saved (inferred from the author's body if not given), never at send time. */
const withEmailFormats = (nodes: WorkflowDefinition['nodes']): WorkflowDefinition['nodes'] =>
  nodes.map((n) =>
    n.type === 'email' && n.data.body !== undefined && !n.data.format
      ? { ...n, data: { ...n.data, format: inferEmailFormat(n.data.body) } }
      : n,
  );

async function snapshot(m: EntityManager, scope: TenantScope, row: DefinitionEntity): Promise<void> {
  await scoped(m, WorkflowDefinitionVersion, scope).insert({
    workflowDefinitionId: row.id,
    version: row.version,
    name: row.name,
    description: row.description,
    nodes: row.nodes,
    edges: row.edges,
  });
}

export async function createWorkflowDefinition(ctx: DomainContext, input: WorkflowDefinition): Promise<DefinitionEntity> {
  return ctx.db.transaction(async (m) => {
    const row = await scoped(m, DefinitionEntity, ctx.scope).insert({ ...input, nodes: withEmailFormats(input.nodes), version: 1 });
    await snapshot(m, ctx.scope, row);
    return row;
  });
}

export async function listWorkflowDefinitions(ctx: DomainContext, f: { page: number; limit: number }) {
  const [rows, total] = await countedPage(
    scoped(ctx.db.manager, DefinitionEntity, ctx.scope).query('w').orderBy('w.created_at', 'DESC').addOrderBy('w.id', 'DESC'),
    f.page,
    f.limit,
  );
  return { rows, total };
}

export async function getWorkflowDefinition(ctx: DomainContext, id: string): Promise<DefinitionEntity> {
  const row = await scoped(ctx.db.manager, DefinitionEntity, ctx.scope).findById(id);
  if (!row) throw notFound('Workflow');
  return row;
}

/**
 * Each PATCH is a new version. The row is locked, so two concurrent PATCHes get consecutive
 * versions instead of both writing the same number.
 */
export async function updateWorkflowDefinition(ctx: DomainContext, id: string, patch: WorkflowDefinitionUpdate): Promise<DefinitionEntity> {
  return ctx.db.transaction(async (m) => {
    const row = await scoped(m, DefinitionEntity, ctx.scope)
      .query('w')
      .andWhere('w.id = :id', { id })
      .setLock('pessimistic_write')
      .getOne();
    if (!row) throw notFound('Workflow');
    const merged = DefinitionSchema.safeParse({
      name: row.name,
      description: row.description,
      nodes: row.nodes,
      edges: row.edges,
      ...patch,
    });
    if (!merged.success) throw validationFailed(toFieldErrors(merged.error));
    Object.assign(row, merged.data, { nodes: withEmailFormats(merged.data.nodes), version: row.version + 1 });
    const saved = await scoped(m, DefinitionEntity, ctx.scope).save(row);
    await snapshot(m, ctx.scope, saved);
    return saved;
  });
}

/** Deletes the definition and its versions (no enrollment can reference them yet). */
export async function deleteWorkflowDefinition(ctx: DomainContext, id: string): Promise<DefinitionEntity> {
  return ctx.db.transaction(async (m) => {
    const repo = scoped(m, DefinitionEntity, ctx.scope);
    const row = await repo.findById(id);
    if (!row) throw notFound('Workflow');
    await scoped(m, WorkflowDefinitionVersion, ctx.scope).deleteWhere({ workflowDefinitionId: id });
    await repo.deleteById(id);
    return row;
  });
}
