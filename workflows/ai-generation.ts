import { ActivityFailure, ApplicationFailure, proxyActivities } from '@temporalio/workflow';
import type { AiActivities, ModelAnswer } from '../activities/ai';
import type { GenerationRequest } from '../contracts/ai-requests';
import { proxyLaneActivities } from './lanes';

/**
 * One model call may take up to the worker's AI request timeout (20 s by default); three attempts
 * with 1 s and 2 s backoff cover a 429 or a 5xx blip. 4xx other than 429 fail non-retryably in the
 * activity and land in the template fallback at once.
 */
const askOptions = {
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '10 seconds', maximumAttempts: 3 },
} as const;
const { renderTemplate } = proxyActivities<AiActivities>({ startToCloseTimeout: '10 seconds', retry: { maximumAttempts: 5 } });

export interface GenerationResult {
  data: unknown;
  source: 'model' | 'template';
  /** Model name when the model produced the data; otherwise why the template was used. */
  detail: string;
}

/**
 * `ai/<kind>/<requestId>`: asks the model, asks once more with the validation errors if the answer
 * does not pass the schema, and otherwise answers with the deterministic template, saying why.
 */
export async function aiGenerationWorkflow(request: GenerationRequest): Promise<GenerationResult> {
  const { askModel } = proxyLaneActivities<AiActivities>('ai', askOptions);
  const fallback = async (detail: string): Promise<GenerationResult> => ({
    data: await renderTemplate(request),
    source: 'template',
    detail,
  });
  let answer: ModelAnswer;
  try {
    answer = await askModel({ request });
    if (answer.status === 'invalid') {
      answer = await askModel({ request, repair: { answer: answer.answer, errors: answer.errors } });
      if (answer.status === 'valid') return { data: answer.data, source: 'model', detail: `${answer.model}, after one repair` };
      if (answer.status === 'invalid') return fallback('the model answer failed validation twice');
    }
  } catch (err) {
    return fallback(describeFailure(err));
  }
  if (answer.status === 'valid') return { data: answer.data, source: 'model', detail: answer.model };
  return fallback('no AI provider key is configured');
}

function describeFailure(err: unknown): string {
  const cause = err instanceof ActivityFailure ? err.cause : err;
  if (cause instanceof ApplicationFailure) {
    return cause.nonRetryable ? `${cause.message}; not retried` : `${cause.message}; gave up after retries`;
  }
  return `the AI provider call failed (${(cause as Error)?.message ?? 'unknown error'})`;
}
