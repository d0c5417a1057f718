import type { z } from 'zod';
import { generate } from '../../domain/ai/generate';
import type { GenerationRequest } from '../../domain/ai/requests';
import { domainContext, type AppDeps } from '../http/domain-context';
import { defineRoute } from '../http/route';
import {
  GeneratedStages,
  GeneratedStatuses,
  GenerateLandingPageRequest,
  GeneratePromptRequest,
  GenerateSequenceRequest,
} from '../schemas/ai-generation';
import { LandingPageDefinition } from '../schemas/landing-page';
import { WorkflowDefinition } from '../schemas/workflow-definition';

/**
 * The four generation endpoints of spec 4.2: 200 with exactly {success, data, message}. `message`
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
      handler: async ({ body, auth }) => {
        const request = { kind: spec.kind, input: body } as GenerationRequest;
        const out = await generate(domainContext(deps, auth), request, deps.aiResponseTimeoutMs);
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
      response: WorkflowDefinition,
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
