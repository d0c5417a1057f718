import type { z } from 'zod';
import { generate } from '../../domain/ai/generate';
import type { GenerationRequest } from '../../contracts/ai-requests';
import type { AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import {
  GeneratedStages,
  GeneratedStatuses,
  GenerateLandingPageRequest,
  GeneratePromptRequest,
  GenerateSequenceRequest,
} from '../../contracts/ai-generation';
import { LandingPageDefinition } from '../../contracts/landing-page';
import { SequenceDefinition } from '../../contracts/sequence-definition';

/**
 * The four generation endpoints: 200 with exactly {success, data, message}. `message`
 * says whether the model or the built-in template produced `data`, and why.
 */
export function aiGenerationRoutes(deps: AppDeps) {
  const route = <B extends z.ZodType, R extends z.ZodType>(spec: {
    path: string;
    summary: string;
    tag: string;
    scope: string;
    body: B;
    response: R;
    kind: GenerationRequest['kind'];
  }) =>
    defineRoute({
      method: 'post',
      path: spec.path,
      summary: spec.summary,
      tag: spec.tag,
      auth: 'tenant',
      scope: spec.scope,
      body: spec.body,
      response: spec.response,
      status: 200,
      envelope: 'bare',
      handler: async ({ body, ctx }) => {
        const request = { kind: spec.kind, input: body } as GenerationRequest;
        const out = await generate(ctx, request, deps.aiResponseTimeoutMs);
        return { data: out.data as z.output<R>, message: out.message };
      },
    });

  return [
    route({
      path: '/v1/campaigns/ai/generate-sequence',
      summary: 'Generate a campaign sequence (postable to /v1/workflows as is)',
      tag: 'AI generation',
      scope: 'workflows:write',
      body: GenerateSequenceRequest,
      response: SequenceDefinition,
      kind: 'sequence',
    }),
    route({
      path: '/v1/campaigns/ai/generate-landing-page',
      summary: 'Generate a landing page (postable to /v1/landing-pages as is)',
      tag: 'AI generation',
      scope: 'landing-pages:write',
      body: GenerateLandingPageRequest,
      response: LandingPageDefinition,
      kind: 'landing-page',
    }),
    route({
      path: '/v1/config/ai/generate-statuses',
      summary: 'Generate lead statuses (each postable to /v1/config/statuses as is)',
      tag: 'AI generation',
      scope: 'config:write',
      body: GeneratePromptRequest,
      response: GeneratedStatuses,
      kind: 'statuses',
    }),
    route({
      path: '/v1/config/ai/generate-opportunity-stages',
      summary: 'Generate opportunity stages (each postable to /v1/config/statuses as is)',
      tag: 'AI generation',
      scope: 'config:write',
      body: GeneratePromptRequest,
      response: GeneratedStages,
      kind: 'opportunity-stages',
    }),
  ];
}
