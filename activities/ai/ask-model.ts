import { ApplicationFailure, Context } from '@temporalio/activity';
import OpenAI from 'openai';
import { toFieldErrors } from '../../lib/zod-errors';
import { OUTPUT_SCHEMAS } from '../../contracts/ai-generation';
import type { LandingPageDefinition } from '../../contracts/landing-page';
import type { GenerationRequest } from '../../contracts/ai-requests';
import { renderSections } from '../../domain/landing-pages/render';
import type { FieldError } from '../../lib/errors';
import { buildMessages } from './prompts';
import type { AiSettings } from './settings';

export interface AskModelInput {
  request: GenerationRequest;
  /** Second attempt: the previous answer and why it failed validation. */
  repair?: { answer: string; errors: FieldError[] };
}

export type ModelAnswer =
  | { status: 'valid'; data: unknown; model: string }
  | { status: 'invalid'; answer: string; errors: FieldError[] }
  | { status: 'not_configured' };

const AI_FAILURE = { unavailable: 'AiProviderUnavailable', rejected: 'AiProviderRejected' } as const;

/** Longest wait a 429's Retry-After may ask for; beyond it the API's own bound has passed anyway. */
const MAX_RETRY_AFTER_MS = 10_000;

/**
 * One model call. Transport failures are classified for Temporal: timeouts, connection errors, 429
 * and 5xx are retryable (with the provider's Retry-After when given); any other 4xx (bad key, bad
 * model) cannot improve by retrying and fails non-retryably. The answer is checked with the same
 * zod schema as the REST endpoints; an invalid answer is returned, not thrown, so the workflow can
 * ask once for a repair.
 */
export function askModel(settings: AiSettings | undefined) {
  const client = settings?.apiKey
    ? new OpenAI({ apiKey: settings.apiKey, baseURL: settings.baseUrl, timeout: settings.requestTimeoutMs + 1000, maxRetries: 0 })
    : null;
  return async ({ request, repair }: AskModelInput): Promise<ModelAnswer> => {
    if (!client || !settings) return { status: 'not_configured' };
    // Our own timer rather than the client's: its timeout error is indistinguishable from a refused
    // connection in some runtimes, and an activity cancellation should abort the call as well.
    const timer = AbortSignal.timeout(settings.requestTimeoutMs);
    let answer: string;
    try {
      const completion = await client.chat.completions.create(
        { model: settings.model, messages: buildMessages(request, repair), response_format: { type: 'json_object' }, temperature: 0.4 },
        { signal: AbortSignal.any([timer, Context.current().cancellationSignal]) },
      );
      answer = completion.choices[0]?.message?.content ?? '';
    } catch (err) {
      if (timer.aborted) throw ApplicationFailure.retryable('The AI provider timed out', AI_FAILURE.unavailable);
      throw classify(err);
    }
    return check(request, answer, settings.model);
  };
}

/** Retries belong to Temporal (maxRetries 0 above), so every failure is classified here. */
function classify(err: unknown): ApplicationFailure {
  if (err instanceof OpenAI.APIConnectionTimeoutError) {
    return ApplicationFailure.retryable('The AI provider timed out', AI_FAILURE.unavailable);
  }
  if (err instanceof OpenAI.APIError && typeof err.status === 'number') {
    const status = err.status;
    if (status === 408 || status === 429 || status >= 500) {
      const retryAfter = Number(err.headers?.get?.('retry-after'));
      return ApplicationFailure.create({
        message: `The AI provider answered HTTP ${status}`,
        type: AI_FAILURE.unavailable,
        details: [{ status }],
        ...(retryAfter > 0 ? { nextRetryDelay: Math.min(retryAfter * 1000, MAX_RETRY_AFTER_MS) } : {}),
      });
    }
    return ApplicationFailure.nonRetryable(`The AI provider rejected the request (HTTP ${status})`, AI_FAILURE.rejected, { status });
  }
  return ApplicationFailure.retryable(`The AI provider is unreachable: ${(err as Error)?.message ?? err}`, AI_FAILURE.unavailable);
}

function check(request: GenerationRequest, answer: string, model: string): ModelAnswer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer);
  } catch {
    return { status: 'invalid', answer, errors: [{ field: 'body', message: 'The answer is not a JSON object' }] };
  }
  // Landing-page HTML is never taken from the model: it is rendered (escaped) from the validated fields.
  const candidate = request.kind === 'landing-page' && isObject(parsed) ? { ...parsed, content: '' } : parsed;
  const result = OUTPUT_SCHEMAS[request.kind].safeParse(candidate);
  if (!result.success) return { status: 'invalid', answer, errors: toFieldErrors(result.error) };
  const data =
    request.kind === 'landing-page'
      ? { ...(result.data as LandingPageDefinition), content: renderSections(result.data as LandingPageDefinition) }
      : result.data;
  return { status: 'valid', data, model };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
