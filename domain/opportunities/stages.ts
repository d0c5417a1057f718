import { StatusDefinition } from '../../db/entities';
import { validationFailed } from '../../lib/errors';
import { ensureSeeded } from '../status-definitions';
import { type ScopedData } from '../../db/scoped-data';

/** The opportunity stage named by `stageId`, or the tenant's default stage (seeded on first use). */
export async function resolveStage(data: ScopedData, stageId?: string): Promise<StatusDefinition> {
  await ensureSeeded(data, 'opportunity');
  const stages = data.repo(StatusDefinition);
  const stage = stageId
    ? await stages.findOne({ id: stageId, entityType: 'opportunity' })
    : await stages.findOne({ entityType: 'opportunity', isDefault: true });
  if (!stage) throw validationFailed([{ field: 'stageId', message: 'Opportunity stage not found' }]);
  return stage;
}

/** What a stage means for an opportunity: its outcome, and the probability unless overridden. */
export function stageEffects(stage: StatusDefinition): { status: 'open' | 'won' | 'lost'; defaultProbability: number } {
  const status = !stage.isClosed ? 'open' : stage.isWon ? 'won' : 'lost';
  return { status, defaultProbability: stage.defaultProbability ?? (status === 'won' ? 100 : 0) };
}
