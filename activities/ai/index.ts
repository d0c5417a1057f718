import type { GenerationRequest } from '../../contracts/ai-requests';
import { templateFor } from '../../domain/ai/templates';
import { askModel } from './ask-model';
import type { AiSettings } from './settings';

export function createAiActivities(settings: AiSettings | undefined) {
  return {
    askModel: askModel(settings),
    /** Deterministic, so a retry or a replay of this activity gives the same answer. */
    renderTemplate: async (request: GenerationRequest): Promise<unknown> => templateFor(request),
  };
}

export type AiActivities = ReturnType<typeof createAiActivities>;
export type { ModelAnswer } from './ask-model';
