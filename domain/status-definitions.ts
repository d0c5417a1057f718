import { Not } from 'typeorm';
import {
  StatusDefinition as StatusDefinitionSchema,
  type EntityType,
  type StatusDefinition,
  type StatusDefinitionUpdate,
} from '../contracts/status-definition';
import { toFieldErrors } from '../lib/zod-errors';
import { Lead, Opportunity, StatusDefinition as StatusDefinitionEntity } from '../db/entities';
import { AppError, notFound, validationFailed } from '../lib/errors';
import type { DomainContext } from './context';
import { DEFAULT_DEFINITIONS } from './default-status-definitions';
import { unitOfWork } from './unit-of-work';
import { type ScopedData } from '../db/scoped-data';
import type { ScopedSqlBuilder } from '../db/scoped-sql';

type Entity = StatusDefinitionEntity;

/**
 * Every write to one (tenant, environment, entity type) takes this transaction-scoped advisory
 * lock, so "unset the old default, set the new one" and lazy seeding never interleave; the partial
 * unique index is the backstop.
 */
function lockEntityType(data: ScopedData, entityType: EntityType): Promise<void> {
  return data.lockScope(`status_definitions:${entityType}`);
}

/**
 * Seeds the defaults the first time a scope touches an entity type. The default definition cannot
 * be deleted, so "no rows" reliably means "never seeded" and deleted rows never come back.
 * Callers outside a transaction (a tenant's first leads, created at once) get no lasting advisory
 * lock, so the seeds go in one statement that skips rows a concurrent seeder already wrote.
 */
export async function ensureSeeded(data: ScopedData, entityType: EntityType): Promise<void> {
  const repo = data.repo(StatusDefinitionEntity);
  if ((await repo.count({ entityType })) > 0) return;
  await lockEntityType(data, entityType);
  if ((await repo.count({ entityType })) > 0) return;
  await repo.insertIgnoringConflicts(DEFAULT_DEFINITIONS[entityType]);
}

async function seedAll(ctx: DomainContext, entityTypes: EntityType[]): Promise<void> {
  for (const t of entityTypes) await unitOfWork(ctx, (tx) => ensureSeeded(tx, t));
}

async function clearOtherDefaults(data: ScopedData, entityType: EntityType, keepId: string | null): Promise<void> {
  await data
    .repo(StatusDefinitionEntity)
    .updateWhere({ entityType, isDefault: true, ...(keepId ? { id: Not(keepId) } : {}) }, { isDefault: false });
}

function duplicateCode(code: string, entityType: EntityType): AppError {
  return new AppError('conflict', `A ${entityType === 'lead' ? 'status' : 'stage'} with code "${code}" already exists`, [
    { field: 'code', message: 'Already in use' },
  ]);
}

async function assertCodeFree(data: ScopedData, entityType: EntityType, code: string, exceptId?: string) {
  const existing = await data.repo(StatusDefinitionEntity).findOne({ entityType, code });
  if (existing && existing.id !== exceptId) throw duplicateCode(code, entityType);
}

export async function createStatusDefinition(ctx: DomainContext, input: StatusDefinition): Promise<Entity> {
  await seedAll(ctx, [input.entityType]);
  return unitOfWork(ctx, async (tx) => {
    await lockEntityType(tx, input.entityType);
    await assertCodeFree(tx, input.entityType, input.code);
    if (input.isDefault) await clearOtherDefaults(tx, input.entityType, null);
    return tx.repo(StatusDefinitionEntity).insert(input);
  });
}

export async function listStatusDefinitions(
  ctx: DomainContext,
  f: { page: number; limit: number; entityType?: EntityType[] },
): Promise<{ rows: Entity[]; total: number }> {
  await seedAll(ctx, f.entityType ?? ['lead', 'opportunity']);
  const qb = ctx.data.repo(StatusDefinitionEntity).select('s');
  if (f.entityType) qb.andWhere('s.entity_type IN (:...entityType)', { entityType: f.entityType });
  qb.orderBy('s.entity_type', 'ASC').addOrderBy('s.sort_order', 'ASC').addOrderBy('s.id', 'ASC');
  const [rows, total] = await qb.page(f.page, f.limit);
  return { rows, total };
}

export async function getStatusDefinition(ctx: DomainContext, id: string): Promise<Entity> {
  const row = await ctx.data.repo(StatusDefinitionEntity).findById(id);
  if (!row) throw notFound('Status');
  return row;
}

function toInput(row: Entity): StatusDefinition {
  const { code, name, description, color, sortOrder, isDefault, isClosed, isWon, defaultProbability, entityType } = row;
  return {
    code,
    name,
    description,
    color: color as StatusDefinition['color'],
    sortOrder,
    isDefault,
    isClosed,
    isWon,
    defaultProbability,
    entityType,
  };
}

export async function updateStatusDefinition(ctx: DomainContext, id: string, patch: StatusDefinitionUpdate): Promise<Entity> {
  const found = await getStatusDefinition(ctx, id);
  return unitOfWork(ctx, async (tx) => {
    await lockEntityType(tx, found.entityType);
    const repo = tx.repo(StatusDefinitionEntity);
    // A new code, and a stage's new closed or won flag, are refused while records use the row: it is
    // locked first, as a delete locks it, so that writers holding it are waited for and counted.
    const inUseMatters = patch.code !== undefined || patch.isClosed !== undefined || patch.isWon !== undefined;
    const row = inUseMatters ? await repo.findByIdForUpdate(id) : await repo.findById(id);
    if (!row) throw notFound('Status');
    if (row.isDefault && patch.isDefault === false) {
      throw new AppError('conflict', 'The default cannot be unset; make another definition the default instead', [
        { field: 'isDefault', message: 'Set isDefault on another definition' },
      ]);
    }
    const merged = StatusDefinitionSchema.safeParse({ ...toInput(row), ...patch });
    if (!merged.success) throw validationFailed(toFieldErrors(merged.error));
    if (patch.code && patch.code !== row.code) {
      await assertCodeFree(tx, row.entityType, patch.code, row.id);
      await assertUnused(tx, row, 'Its code cannot change');
    }
    // A deal's open/won/lost state was set when it entered the stage (and a win earned commissions).
    if (merged.data.isClosed !== row.isClosed || merged.data.isWon !== row.isWon) {
      await assertUnused(tx, row, 'Whether it is closed or won cannot change');
    }
    if (merged.data.isDefault && !row.isDefault) await clearOtherDefaults(tx, row.entityType, row.id);
    Object.assign(row, merged.data);
    return repo.save(row);
  });
}

/**
 * Deletes a definition no record uses. The row is locked FOR UPDATE before the records are
 * counted: every write of a lead's status or a deal's stage holds the definition it names FOR KEY
 * SHARE until it commits (domain/find-definition.ts), so this waits for a record being written
 * with it, and the count, a later statement, then sees that record and refuses; a writer that
 * comes second waits for this delete and then finds no definition (the 422 of an unknown status
 * or stage). Locked before counting, not after: a count before the lock would miss a record whose
 * writer holds the row, and the delete, once that writer committed, would not look again.
 */
export async function deleteStatusDefinition(ctx: DomainContext, id: string): Promise<Entity> {
  const found = await getStatusDefinition(ctx, id);
  return unitOfWork(ctx, async (tx) => {
    await lockEntityType(tx, found.entityType);
    const row = await tx.repo(StatusDefinitionEntity).findByIdForUpdate(id);
    if (!row) throw notFound('Status');
    if (row.isDefault) {
      throw new AppError('conflict', 'The default cannot be deleted; make another definition the default first');
    }
    await assertUnused(tx, row, 'It cannot be deleted');
    await tx.repo(StatusDefinitionEntity).deleteById(id);
    return row;
  });
}

const USES_COUNTED = 10_000;

/**
 * The statement that counts a definition's records, up to USES_COUNTED. A lead status's leads are
 * read from `ix_leads_scope_status`, a stage's deals from `ix_opportunities_scope_stage` (that
 * status's or stage's entries only, no table rows once vacuumed); without them, a definition no
 * record uses meant reading every lead or deal of the scope to find none. Checked for the plan a
 * prepared statement settles on and for a definition few records use, the usual delete
 * (test/status-in-use-plan.test.ts).
 */
export function usesCountSql(q: ScopedSqlBuilder, row: Pick<Entity, 'entityType' | 'code' | 'id'>): string {
  const using =
    row.entityType === 'lead'
      ? `SELECT 1 FROM ${q.table(Lead)} WHERE ${q.scope()} AND status = ${q.value(row.code)}`
      : `SELECT 1 FROM ${q.table(Opportunity)} WHERE ${q.scope()} AND stage_id = ${q.value(row.id)}`;
  return `SELECT count(*)::int AS n FROM (${using} LIMIT ${USES_COUNTED}) used`;
}

/**
 * A status that leads have, or a stage that opportunities are in, keeps its code and stays: the
 * records store the code (leads) or the stage (opportunities), and a renamed or deleted definition
 * would leave them with a status no definition describes, which filters, conditions and the
 * dashboard no longer know. A stage's closed and won flags stay too: its deals' state follows
 * them. Counted up to 10,000 (a definition is rarely deleted).
 */
async function assertUnused(data: ScopedData, row: Entity, refused: string): Promise<void> {
  const lead = row.entityType === 'lead';
  const [{ n }] = await data.sql<{ n: number }>((q) => usesCountSql(q, row));
  if (!n) return;
  const count = n >= USES_COUNTED ? `${USES_COUNTED.toLocaleString('en-US')} or more` : String(n);
  const records = lead ? `lead${n === 1 ? ' has' : 's have'} this status` : `opportunit${n === 1 ? 'y is' : 'ies are'} in this stage`;
  const move = lead ? 'PATCH /v1/leads/{id} with another status' : 'PATCH /v1/opportunities/{id} with another stageId';
  throw new AppError('conflict', `${count} ${records}. ${refused} until they are moved (${move}).`);
}
