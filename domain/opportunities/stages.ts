import type { StatusDefinition } from '../../db/entities';
import { validationFailed } from '../../lib/errors';
import { type DefinitionLock, findOrSeedDefinition } from '../find-definition';
import { type ScopedData } from '../../db/scoped-data';
import type { UnitOfWork } from '../unit-of-work';

/**
 * Opportunity stages are the tenant's opportunity status definitions; a deal records its stage's ID
 * and code, and its open, won or lost state from the stage's flags. Every write of a deal's stage
 * holds the stage until it commits, so that it is not deleted, nor its code or flags changed,
 * under the deal (domain/find-definition.ts): a writer that waited for a delete finds no stage
 * (the 422 of an unknown one), one that waited for a change gets the stage as it is now.
 */
async function findStage(data: ScopedData, stageId: string | undefined, lock: DefinitionLock): Promise<StatusDefinition> {
  const stage = await findOrSeedDefinition(data, 'opportunity', stageId === undefined ? undefined : { id: stageId }, lock);
  if (!stage) throw validationFailed([{ field: 'stageId', message: 'Opportunity stage not found' }]);
  return stage;
}

/** The opportunity stage named by `stageId`, or the tenant's default stage (seeded on first use). Only read: not for a write of a deal's stage. */
export function resolveStage(data: ScopedData, stageId?: string): Promise<StatusDefinition> {
  return findStage(data, stageId, 'none');
}

/** As resolveStage, and holds the stage (FOR KEY SHARE) until `tx` ends: for a transaction that puts a deal in it. */
export function holdStage(tx: UnitOfWork, stageId?: string): Promise<StatusDefinition> {
  return findStage(tx, stageId, 'key share');
}

/** What a stage means for an opportunity: its outcome, and the probability unless overridden. */
export function stageEffects(stage: StatusDefinition): { status: 'open' | 'won' | 'lost'; defaultProbability: number } {
  const status = !stage.isClosed ? 'open' : stage.isWon ? 'won' : 'lost';
  return { status, defaultProbability: stage.defaultProbability ?? (status === 'won' ? 100 : 0) };
}
