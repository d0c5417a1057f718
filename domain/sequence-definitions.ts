import { toFieldErrors } from '../lib/zod-errors';
import {
  SequenceDefinition as DefinitionSchema,
  type SequenceDefinition,
  type SequenceDefinitionUpdate,
} from '../contracts/sequence-definition';
import { In } from 'typeorm';
import { Campaign, SequenceDefinition as DefinitionEntity, SequenceDefinitionVersion, StatusDefinition } from '../db/entities';
import { AppError, notFound, validationFailed } from '../lib/errors';
import { inferEmailFormat } from './communications/email-format';
import type { DomainContext } from './context';
import { ensureSeeded } from './status-definitions';
import { unitOfWork } from './unit-of-work';
import { type ScopedData } from '../db/scoped-data';

/** Email nodes with a body get their format when saved (inferred from the author's body if not given), never at send time. */
const withEmailFormats = (nodes: SequenceDefinition['nodes']): SequenceDefinition['nodes'] =>
  nodes.map((n) =>
    n.type === 'email' && n.data.body !== undefined && !n.data.format
      ? { ...n, data: { ...n.data, format: inferEmailFormat(n.data.body) } }
      : n,
  );

/**
 * The lead statuses a definition names (an update_lead_status action, a lead_status condition) must
 * be the tenant's: a typo would otherwise become the status of every lead the action reaches.
 */
async function assertLeadStatuses(data: ScopedData, nodes: SequenceDefinition['nodes']): Promise<void> {
  const named = nodes.flatMap((n, i) =>
    n.type === 'action' && n.data.actionType === 'update_lead_status' && n.data.status
      ? [{ field: `nodes.${i}.data.status`, code: n.data.status }]
      : n.type === 'condition' && n.data.conditionField === 'lead_status' && n.data.value
        ? [{ field: `nodes.${i}.data.value`, code: n.data.value }]
        : [],
  );
  if (!named.length) return;
  await ensureSeeded(data, 'lead');
  const codes = (await data.repo(StatusDefinition).find({ where: { entityType: 'lead' }, order: { sortOrder: 'ASC' } })).map((s) => s.code);
  const errors = named
    .filter(({ code }) => !codes.includes(code))
    .map(({ field, code }) => ({ field, message: `Unknown lead status "${code}"; the statuses are ${codes.join(', ')}` }));
  if (errors.length) throw validationFailed(errors);
}

async function snapshot(data: ScopedData, row: DefinitionEntity): Promise<void> {
  await data.repo(SequenceDefinitionVersion).insert({
    workflowDefinitionId: row.id,
    version: row.version,
    name: row.name,
    description: row.description,
    nodes: row.nodes,
    edges: row.edges,
  });
}

export async function createSequenceDefinition(ctx: DomainContext, input: SequenceDefinition): Promise<DefinitionEntity> {
  return unitOfWork(ctx, async (tx) => {
    await assertLeadStatuses(tx, input.nodes);
    const row = await tx.repo(DefinitionEntity).insert({ ...input, nodes: withEmailFormats(input.nodes), version: 1 });
    await snapshot(tx, row);
    return row;
  });
}

export async function listSequenceDefinitions(ctx: DomainContext, f: { page: number; limit: number }) {
  const [rows, total] = await ctx.data
    .repo(DefinitionEntity)
    .select('w')
    .orderBy('w.created_at', 'DESC')
    .addOrderBy('w.id', 'DESC')
    .page(f.page, f.limit);
  return { rows, total };
}

export async function getSequenceDefinition(ctx: DomainContext, id: string): Promise<DefinitionEntity> {
  const row = await ctx.data.repo(DefinitionEntity).findById(id);
  if (!row) throw notFound('Workflow');
  return row;
}

/**
 * Each PATCH is a new version. The row is locked, so two concurrent PATCHes get consecutive
 * versions instead of both writing the same number.
 */
export async function updateSequenceDefinition(ctx: DomainContext, id: string, patch: SequenceDefinitionUpdate): Promise<DefinitionEntity> {
  return unitOfWork(ctx, async (tx) => {
    const row = await tx.repo(DefinitionEntity).select('w').andWhere('w.id = :id', { id }).setLock('pessimistic_write').getOne();
    if (!row) throw notFound('Workflow');
    const merged = DefinitionSchema.safeParse({
      name: row.name,
      description: row.description,
      nodes: row.nodes,
      edges: row.edges,
      ...patch,
    });
    if (!merged.success) throw validationFailed(toFieldErrors(merged.error));
    if (patch.nodes) await assertLeadStatuses(tx, merged.data.nodes);
    Object.assign(row, merged.data, { nodes: withEmailFormats(merged.data.nodes), version: row.version + 1 });
    const saved = await tx.repo(DefinitionEntity).save(row);
    await snapshot(tx, saved);
    return saved;
  });
}

/**
 * Deletes the definition and its versions. A campaign not completed yet runs (or will run) its pinned
 * version, and new enrollments read it: while one uses the definition, the delete is a 409.
 */
export async function deleteSequenceDefinition(ctx: DomainContext, id: string): Promise<DefinitionEntity> {
  return unitOfWork(ctx, async (tx) => {
    const repo = tx.repo(DefinitionEntity);
    const row = await repo.findByIdForUpdate(id);
    if (!row) throw notFound('Workflow');
    const using = await tx.repo(Campaign).count({ workflowDefinitionId: id, status: In(['draft', 'active', 'paused']) });
    if (using) {
      const campaigns = using === 1 ? '1 campaign uses' : `${using} campaigns use`;
      throw new AppError('conflict', `${campaigns} this workflow (draft, active or paused); complete or delete them before deleting it`);
    }
    await tx.repo(SequenceDefinitionVersion).deleteWhere({ workflowDefinitionId: id });
    await repo.deleteById(id);
    return row;
  });
}
